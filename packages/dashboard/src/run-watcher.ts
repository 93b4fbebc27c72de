/**
 * Follows a run directory: reads `metrics.jsonl` as it grows (only the new bytes), holds back a line
 * that is still being written, and notices a file that was cut back (a resumed run) or replaced.
 */

import { open, readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { type MetricsLineV1, type RunRecordV1, readRunRecord } from '@mage-rl/core';
import { parseMetrics, type RunMetrics, runMetrics } from '@mage-rl/report';

export interface RunStatus {
  readonly id: string;
  readonly dir: string;
  readonly name: string;
  /** What is wrong, for the page to show (the directory does not exist, has no metrics yet …). */
  readonly error: string | null;
  readonly lines: number;
  /** 1-based numbers of damaged lines left out. */
  readonly damaged: readonly number[];
  /** True while the file ends in an incomplete line. */
  readonly partial: boolean;
}

/** Largest metrics.jsonl read (a run of thousands of iterations is a few tens of MB). */
const MAX_METRICS_BYTES = 256 * 1024 * 1024;

/** `method (env) · dir` when the record names the method, else the directory's name. */
function runName(dir: string, { method, env }: RunRecordV1): string {
  return method ? `${method}${env ? ` (${env})` : ''} · ${basename(dir)}` : basename(dir);
}

export class RunWatcher {
  readonly dir: string;
  private name: string;
  private lines: MetricsLineV1[] = [];
  private damaged: number[] = [];
  private offset = 0;
  private pending = Buffer.alloc(0);
  private lineNo = 1;
  private error: string | null = null;
  private named = false;

  constructor(
    readonly id: string,
    dir: string,
  ) {
    this.dir = resolve(dir);
    this.name = basename(this.dir);
  }

  /** Reads what is new; returns the new complete lines (none when nothing changed). */
  async poll(): Promise<{ lines: MetricsLineV1[]; changed: boolean }> {
    const before = `${this.error}|${this.pending.length}|${this.damaged.length}`;
    let lines: MetricsLineV1[] = [];
    try {
      lines = await this.read();
    } catch (error) {
      this.error = (error as Error).message;
    }
    const after = `${this.error}|${this.pending.length}|${this.damaged.length}`;
    return { lines, changed: lines.length > 0 || before !== after };
  }

  private async read(): Promise<MetricsLineV1[]> {
    const info = await stat(this.dir).catch(() => null);
    if (!info?.isDirectory()) {
      this.error = `'${this.dir}' does not exist or is not a directory: check the path given to mage dashboard.`;
      return [];
    }
    if (!this.named) {
      // A run that has not written its record yet, or is writing it, is named on a later poll.
      const record = await readRunRecord(this.dir).catch(() => null);
      if (record !== null) {
        this.name = runName(this.dir, record);
        this.named = true;
      }
    }
    const path = join(this.dir, 'metrics.jsonl');
    const file = await stat(path).catch(() => null);
    if (!file) {
      this.error = `'${this.dir}' has no metrics.jsonl yet: the run has not finished its first iteration, or this is not a run directory.`;
      return [];
    }
    this.error = null;
    if (file.size < this.offset) this.reset();
    if (file.size > MAX_METRICS_BYTES) {
      this.error = `'${path}' is larger than ${MAX_METRICS_BYTES} bytes; the dashboard does not read it.`;
      return [];
    }
    if (file.size === this.offset) return [];
    const handle = await open(path, 'r');
    let chunk: Buffer;
    try {
      chunk = Buffer.alloc(file.size - this.offset);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, this.offset);
      chunk = chunk.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    this.offset += chunk.length;
    const data = Buffer.concat([this.pending, chunk]);
    const end = data.lastIndexOf(0x0a);
    const complete = end < 0 ? '' : data.subarray(0, end + 1).toString('utf8');
    this.pending = Buffer.from(end < 0 ? data : data.subarray(end + 1));
    const parsed = parseMetrics(complete, this.lineNo);
    this.lineNo += complete === '' ? 0 : complete.split('\n').length - 1;
    this.lines.push(...parsed.lines);
    this.damaged.push(...parsed.damaged);
    return parsed.lines;
  }

  private reset(): void {
    this.lines = [];
    this.damaged = [];
    this.offset = 0;
    this.pending = Buffer.alloc(0);
    this.lineNo = 1;
  }

  status(): RunStatus {
    return {
      id: this.id,
      dir: this.dir,
      name: this.name,
      error: this.error,
      lines: this.lines.length,
      damaged: this.damaged.slice(0, 20),
      partial: this.pending.toString('utf8').trim() !== '',
    };
  }

  metrics(): RunMetrics {
    return runMetrics(this.id, this.name, this.lines);
  }

  /** The replay files of the run, newest iteration last. */
  async episodeFiles(): Promise<{ name: string; kind: 'train' | 'eval'; iteration: number }[]> {
    // Regular files only: symlinks are neither listed nor served (nothing is followed out of a run).
    const entries = await readdir(join(this.dir, 'episodes'), { withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .flatMap((name) => {
        const m = EPISODE_FILE.exec(name);
        if (!m) return [];
        return [{ name, kind: m[1] as 'train' | 'eval', iteration: m[2] === 'start' ? -1 : Number(m[2]) }];
      })
      .sort((a, b) => a.iteration - b.iteration || a.kind.localeCompare(b.kind));
  }
}

export const EPISODE_FILE = /^(train|eval)-(start|\d{6})\.json$/;
