/**
 * The demo's pipeline (`scripts/demo.mjs` after install and build) in this process, stage by stage:
 * the warm start as `mage pretrain` makes it (teachers' corpus, supervised epochs, the warm model's
 * evaluation, saving), then `mage experiment` (training each method, then evaluating the warm start
 * and every trained policy under each memory). Config values (`overrides`) shorten it; the stages come
 * from the progress callbacks and training events the trainer already emits, and the learner's session
 * timing events.
 */

import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrainingEvent } from '@mage-rl/core';
import type { RunPresetId, TrainConfigInput } from '@mage-rl/recipes';
import { type EvalMemory, EXPERIMENT_FORMAT, runExperiment } from '@mage-rl/trainer';
import { ensureWarmStart, plannedWarmStart } from '@mage-rl/trainer/internals';
import { createStageProfiler, type StageProfiler, type StageRow } from './stage-profiler';

export interface DemoProfileOptions {
  readonly preset: RunPresetId;
  readonly seed?: number;
  /** Trained methods besides the warm start (default `['mage']`, the demo's). */
  readonly methods?: readonly string[];
  /** Default the demo's: `reflection`, `none`, `method`. */
  readonly evalMemories?: readonly EvalMemory[];
  /** Config values over the preset (`train.iterations`, `warmStart.epochs`, `eval.episodes` …). */
  readonly overrides?: TrainConfigInput;
  /** A warm-start directory to use instead of pretraining one (its stages are then absent). */
  readonly model?: string;
  /** Where the warm start, runs and evaluations go (default a temporary directory, removed after). */
  readonly workDir?: string;
  /** Stage rows so far are kept here too (a profile of a process started before the pipeline). */
  readonly profiler?: StageProfiler;
  readonly log?: (line: string) => void;
}

export interface DemoProfile {
  readonly stages: StageRow[];
  /** Evaluation records' pass@k of every policy and memory, in-domain (to see the run did its work). */
  readonly evaluations: readonly {
    readonly label: string;
    readonly memory: string;
    readonly passAtK: number[];
  }[];
}

/** The stage a training event starts. */
function trainingStage(event: TrainingEvent): string | undefined {
  switch (event.type) {
    case 'iteration-start':
      return 'train: rollout';
    case 'rollout-end':
      return 'train: update';
    case 'update-end':
      return 'train: evaluation, checkpoint';
    case 'run-end':
      return 'after training: report, evaluation model load';
    default:
      return undefined;
  }
}

export async function profileDemo(options: DemoProfileOptions): Promise<DemoProfile> {
  const profiler = options.profiler ?? createStageProfiler();
  const workDir = options.workDir ?? (await mkdtemp(join(tmpdir(), 'mage-bench-demo-')));
  const log = options.log ?? (() => {});
  const seed = options.seed ?? 1;
  const overrides = options.overrides ?? {};
  try {
    const cacheDir = join(workDir, 'cache');
    const planned = { env: 'tictactoe', preset: options.preset, seed, overrides, cacheDir };
    if (options.model !== undefined) {
      // The experiment finds a given warm start where it would have cached its own.
      await cp(options.model, plannedWarmStart(planned), { recursive: true });
    } else {
      profiler.mark('warm start: teachers’ corpus');
      await ensureWarmStart({
        ...planned,
        log: (line) => {
          log(line);
          // trainEpochs logs `epoch e/E: loss …` after each epoch; the warm model's evaluation follows.
          const epoch = /^epoch (\d+)\/(\d+):/.exec(line);
          if (epoch && epoch[1] === epoch[2]) profiler.mark('warm start: evaluation');
        },
        onPretrainProgress: (p) => {
          if (p.done < p.total) return;
          if (p.phase === 'corpus') profiler.mark('warm start: tokenizer, model, epochs');
          else if (p.phase === 'eval') profiler.mark('warm start: save');
        },
      });
    }
    profiler.mark('experiment: set-up, warm start load');
    const records = await runExperiment({
      spec: {
        format: EXPERIMENT_FORMAT,
        env: 'tictactoe',
        preset: options.preset,
        methods: ['warm-start', ...(options.methods ?? ['mage'])],
        seeds: [seed],
        overrides,
        grid: [],
        evalMemories: options.evalMemories ?? ['reflection', 'none', 'method'],
      },
      outDir: join(workDir, 'experiment'),
      cacheDir,
      log: (line) => {
        log(line);
        const train = /^train (\S+), seed/.exec(line);
        if (train) profiler.mark('train: set-up (model, reference)');
        const evaluate = /^evaluate (\S+), seed \d+, memory (\S+)/.exec(line);
        if (evaluate) profiler.mark(`evaluate ${evaluate[1]} (${evaluate[2]})`);
      },
      onTrainingEvent: (_policy, _seed, event) => {
        const stage = trainingStage(event);
        if (stage !== undefined) profiler.mark(stage);
      },
    });
    const stages = profiler.finish();
    return {
      stages,
      evaluations: records.map((r) => ({
        label: r.label,
        memory: r.memory,
        passAtK: (r.suites.find((s) => s.domain === 'in')?.metrics.overall.perAttempt ?? []).map(
          (a) => a.passAtK.rate,
        ),
      })),
    };
  } finally {
    profiler.finish();
    if (options.workDir === undefined) await rm(workDir, { recursive: true, force: true });
  }
}
