/**
 * A resolved config → the options of core's training loop (`runTraining` / `iterateTraining`): env,
 * population, memory, advantage and loss functions, rollout and PPO numbers, evaluation suites.
 */

import type {
  EnvV1,
  JsonObject,
  LearnerV1,
  MemoryStateOptions,
  RunnerEvent,
  TrainingEvaluationOptions,
  TrainingOptions,
} from '@mage-rl/core';
import { computeAdvantageColumns, rowsToAdvantageInputs } from '@mage-rl/gigpo';
import { evaluationSuites } from '../evaluation';
import {
  advantageOptionsOf,
  makeLossFn,
  memoryOf,
  populationOf,
  rowGroupingOf,
  type TrainConfig,
} from '../presets';
import { createEnvById, opponentFactory } from '../wiring';
import { toJsonObject } from './config-json';

export interface TrainingOptionsOfArgs {
  readonly learner: LearnerV1;
  /** Frozen reference policy for the KL term (needed when `ppo.klCoef` > 0). */
  readonly reference?: Pick<LearnerV1, 'logprobs'>;
  readonly runDir?: string;
  readonly resume?: boolean;
  readonly keepCheckpoints?: number;
  readonly memoryState?: MemoryStateOptions;
  readonly onRunnerEvent?: (event: RunnerEvent, phase: 'train' | 'eval') => void;
  readonly signal?: AbortSignal;
}

/** Rows → advantages as a typed column (what core's loop reads). */
export function makeAdvantageColumnFn(config: TrainConfig): TrainingOptions['advantages'] {
  const options = advantageOptionsOf(config);
  const grouping = rowGroupingOf(config);
  return (rows) => computeAdvantageColumns(rowsToAdvantageInputs(rows, grouping), options).advantages;
}

/**
 * Core's evaluation suites of a config. Core takes one in-domain and one out-of-domain suite; of several
 * out-of-domain env variants (Sokoban 1-box and 3-box rooms) the first is used when the env has no
 * out-of-domain opponents — `evaluateConfig` runs all of them.
 */
export function trainingEvaluationOf(config: TrainConfig): TrainingEvaluationOptions {
  const suites = evaluationSuites(config);
  const inDomain = suites.find((s) => s.domain === 'in');
  const outOfDomain = suites.find((s) => s.domain === 'out');
  const envFor = (options: JsonObject): EnvV1 => createEnvById(config.env.id, options);
  const suite = (s: (typeof suites)[number]) => ({
    ...(s.opponents.length > 0 ? { opponents: s.opponents } : {}),
    env: envFor(s.envOptions),
  });
  return {
    every: config.train.evalEvery > 0 ? config.train.evalEvery : Math.max(1, config.train.iterations),
    episodes: config.eval.episodes,
    attempts: config.eval.attempts,
    earlyStop: config.eval.earlyStop,
    seed: `${String(config.seed)}/eval`,
    sampling: {
      temperature: config.eval.temperature,
      topP: config.eval.topP,
      ...(config.eval.topK > 0 ? { topK: config.eval.topK } : {}),
    },
    // Retrieval memories keep cases: evaluation gets its own instance.
    memory: memoryOf(config),
    ...(inDomain ? { inDomain: suite(inDomain) } : {}),
    ...(outOfDomain ? { outOfDomain: suite(outOfDomain) } : {}),
  };
}

/** Everything `runTraining` needs from a config, plus the learner and run-directory arguments. */
export function trainingOptionsOf(config: TrainConfig, args: TrainingOptionsOfArgs): TrainingOptions {
  const env = createEnvById(config.env.id, config.env.options);
  const population = populationOf(config);
  const makeOpponent = opponentFactory(config.env.id);
  return {
    env,
    learner: args.learner,
    memory: memoryOf(config),
    ...(population ? { population } : {}),
    ...(makeOpponent ? { makeOpponent } : {}),
    advantages: makeAdvantageColumnFn(config),
    loss: makeLossFn(config),
    ...(args.reference ? { reference: args.reference } : {}),
    seed: config.seed,
    iterations: config.train.iterations,
    rollout: {
      groups: config.rollout.groups,
      groupSize: config.rollout.groupSize,
      attempts: config.rollout.attempts,
      context: config.rollout.context,
      style: config.rollout.style,
      earlyStop: config.rollout.earlyStop,
      seats: config.rollout.seats,
      sampling: {
        temperature: config.rollout.temperature,
        topP: config.rollout.topP,
        ...(config.rollout.topK > 0 ? { topK: config.rollout.topK } : {}),
      },
      maxTokens: config.rollout.maxTokens,
    },
    update: {
      epochs: config.ppo.epochs,
      miniBatchRows: config.ppo.miniBatchRows,
      entropyCoef: config.ppo.entropyCoef,
      ...(config.ppo.refusedRetry === undefined ? {} : { refusedRetry: config.ppo.refusedRetry }),
    },
    ...(config.train.evaluate ? { evaluation: trainingEvaluationOf(config) } : {}),
    checkpoints: {
      every: config.train.checkpointEvery,
      ...(args.keepCheckpoints === undefined ? {} : { keep: args.keepCheckpoints }),
    },
    config: toJsonObject(config),
    ...(args.runDir === undefined ? {} : { runDir: args.runDir }),
    ...(args.resume === undefined ? {} : { resume: args.resume }),
    ...(args.memoryState ? { memoryState: args.memoryState } : {}),
    ...(args.onRunnerEvent ? { onRunnerEvent: args.onRunnerEvent } : {}),
    ...(args.signal ? { signal: args.signal } : {}),
  };
}
