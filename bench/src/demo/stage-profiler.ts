/**
 * Where a pipeline's time goes, stage by stage: `mark(name)` ends the current stage and starts `name`.
 * Each stage gets its wall time, the process's CPU time (every thread: the onnxruntime worker and its
 * pool count), the highest RSS sampled while it ran, and the onnxruntime sessions compiled and run in it
 * (the learner's `node:diagnostics_channel` timing events, see `@mage-rl/learner`'s `runner-events.ts`).
 * Stages of the same name (every iteration's rollout) are summed into one row.
 */

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  SESSION_LOAD_CHANNEL,
  SESSION_RUN_CHANNEL,
  type SessionLoadEvent,
  type SessionRunEvent,
} from '@mage-rl/learner';

export interface StageRow {
  readonly stage: string;
  /** Times the stage was entered. */
  readonly count: number;
  readonly wallSeconds: number;
  /** User + system CPU seconds of the whole process. */
  readonly cpuSeconds: number;
  /** The highest RSS sampled during the stage (every `sampleMs`, and at its ends). */
  readonly peakRssBytes: number;
  /** Sessions created (graph built, serialised and compiled by onnxruntime). */
  readonly compiles: number;
  /** Wall seconds of those creations (graph building on the main thread + onnxruntime's compile). */
  readonly compileSeconds: number;
  readonly runs: number;
  /** Wall seconds of session runs as their callers saw them. */
  readonly runSeconds: number;
}

export interface StageProfiler {
  /** Ends the current stage (if any) and starts `stage`. */
  mark(stage: string): void;
  /** Ends the current stage and stops sampling; returns the rows in order of first entry. */
  finish(): StageRow[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

export function createStageProfiler(options: { readonly sampleMs?: number } = {}): StageProfiler {
  const rows = new Map<string, Mutable<StageRow>>();
  let current: { row: Mutable<StageRow>; wall: number; cpu: number } | undefined;
  const sampleRss = () => {
    if (current === undefined) return;
    current.row.peakRssBytes = Math.max(current.row.peakRssBytes, process.memoryUsage.rss());
  };
  const timer = setInterval(sampleRss, options.sampleMs ?? 50);
  timer.unref();
  const onLoad = (message: unknown) => {
    if (current === undefined) return;
    const e = message as SessionLoadEvent;
    current.row.compiles++;
    current.row.compileSeconds += (e.buildMs + e.compileMs) / 1000;
  };
  const onRun = (message: unknown) => {
    if (current === undefined) return;
    current.row.runs++;
    current.row.runSeconds += (message as SessionRunEvent).ms / 1000;
  };
  subscribe(SESSION_LOAD_CHANNEL, onLoad);
  subscribe(SESSION_RUN_CHANNEL, onRun);
  const close = () => {
    if (current === undefined) return;
    sampleRss();
    current.row.wallSeconds += (performance.now() - current.wall) / 1000;
    current.row.cpuSeconds += cpuSeconds() - current.cpu;
    current = undefined;
  };
  return {
    mark(stage) {
      close();
      let row = rows.get(stage);
      if (row === undefined) {
        row = {
          stage,
          count: 0,
          wallSeconds: 0,
          cpuSeconds: 0,
          peakRssBytes: 0,
          compiles: 0,
          compileSeconds: 0,
          runs: 0,
          runSeconds: 0,
        };
        rows.set(stage, row);
      }
      row.count++;
      current = { row, wall: performance.now(), cpu: cpuSeconds() };
      sampleRss();
    },
    finish() {
      close();
      clearInterval(timer);
      unsubscribe(SESSION_LOAD_CHANNEL, onLoad);
      unsubscribe(SESSION_RUN_CHANNEL, onRun);
      return [...rows.values()];
    },
  };
}

/** The rows as a Markdown table, with a total row. */
export function stageTable(rows: readonly StageRow[]): string {
  const sum = (f: (r: StageRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  const gb = (b: number) => (b / 1e9).toFixed(2);
  const line = (r: StageRow | 'total') => {
    const v =
      r === 'total'
        ? {
            stage: '**total**',
            count: '',
            wall: sum((x) => x.wallSeconds),
            cpu: sum((x) => x.cpuSeconds),
            peak: Math.max(0, ...rows.map((x) => x.peakRssBytes)),
            compiles: sum((x) => x.compiles),
            compileSeconds: sum((x) => x.compileSeconds),
            runs: sum((x) => x.runs),
            runSeconds: sum((x) => x.runSeconds),
          }
        : {
            stage: r.stage,
            count: String(r.count),
            wall: r.wallSeconds,
            cpu: r.cpuSeconds,
            peak: r.peakRssBytes,
            compiles: r.compiles,
            compileSeconds: r.compileSeconds,
            runs: r.runs,
            runSeconds: r.runSeconds,
          };
    return `| ${v.stage} | ${v.count} | ${v.wall.toFixed(1)} | ${v.cpu.toFixed(1)} | ${v.wall > 0 ? (v.cpu / v.wall).toFixed(2) : '–'} | ${gb(v.peak)} | ${v.compiles} | ${v.compileSeconds.toFixed(1)} | ${v.runs} | ${v.runSeconds.toFixed(1)} |`;
  };
  return [
    '| stage | times | wall s | CPU s | CPU/wall | peak RSS GB | sessions compiled | compile s | session runs | run s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(line),
    line('total'),
  ].join('\n');
}
