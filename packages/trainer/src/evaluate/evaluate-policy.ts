/**
 * Evaluating a policy by name: the method and memory it plays with (a run's own unless given), the
 * config of its prompt layout and evaluation sampling, the task (a run's own env options and evaluation
 * protocol on its env), the opponents (the evaluation suites unless given), then `evaluateWithMemory` and
 * the policy freed.
 */

import type { CodeV1, MachineV1, MetaEpisodeMetricsV1, MetricsSummaryV1 } from '@mage-rl/core';
import {
  envDefinition,
  METHODS,
  type MemoryKind,
  type MethodId,
  mergeConfig,
  type RunPresetId,
  resolveTrainConfig,
  type TrainConfig,
  type TrainConfigInput,
} from '@mage-rl/recipes';
import { identifiableOpponents, identificationCeiling } from '../report/reference-values';
import { trainerCode, trainerMachine } from '../run-record/code';
import {
  type LoadedPolicy,
  type LoadPolicyOptions,
  loadPolicy,
  type TrainedWithV1,
  trainedWith,
} from './load-policy';
import {
  type EvaluateWithMemoryOptions,
  evaluateWithMemory,
  type MemoryEvaluationV1,
} from './memory-benefit';

export interface EvaluatePolicyOptions
  extends Pick<LoadPolicyOptions, 'policy' | 'model' | 'apiKey'>,
    Pick<
      EvaluateWithMemoryOptions,
      'episodes' | 'attempts' | 'seed' | 'baseline' | 'foreignNotes' | 'signal'
    > {
  /** The env it plays; default: the env a run trained on, else the config's default env. */
  readonly env?: string;
  /** The method whose prompts the policy plays with; default: a run's own, else `reflexion`. */
  readonly method?: MethodId;
  /** Default: the memory a run trained with, else the method's. */
  readonly memory?: MemoryKind;
  /** The run preset of the prompt layout and evaluation sampling. */
  readonly preset: RunPresetId;
  /**
   * Config values over the preset and, for a run evaluated on the env it trained on, over its env options
   * and evaluation protocol (an env's `url`, say).
   */
  readonly overrides?: TrainConfigInput;
  /** Default: the in-domain and out-of-domain opponents of the env's evaluation protocol. */
  readonly opponents?: readonly string[];
  /**
   * With `foreignNotes`: the policy (a spec as `policy`: `teacher`, a run or model directory) whose notes
   * are swapped in (`EvaluateWithMemoryOptions.noteDonor`). Default: this policy's own.
   */
  readonly noteDonor?: string;
}

/** An evaluation (`Trainer.evaluate`, `mage eval`): what played, and its results. */
export interface EvaluationV1 extends MemoryEvaluationV1 {
  readonly env: string;
  readonly method: MethodId;
  readonly memory: MemoryKind;
  readonly opponents: readonly string[];
  /**
   * With the no-memory run: the most pass@K the memory could add by identifying the opponent
   * (`identificationCeiling`); absent when no opponent played can be identified.
   */
  readonly identificationCeiling?: number;
  /**
   * The game's return unit (Kuhn Poker: chips per hand) and the env reward per unit under the evaluation's
   * env options; absent for envs that name none.
   */
  readonly returnUnit?: ReturnUnitV1;
  /** The code that evaluated (`trainerCode`: the commit of the trainer's checkout, package versions). */
  readonly code: CodeV1;
  /** The machine that evaluated, with the learner's runtime. */
  readonly machine: MachineV1;
}

export interface ReturnUnitV1 {
  readonly unit: string;
  /** Env reward units per return unit: mean returns are divided by it. */
  readonly rewardPerReturn: number;
}

/** Each attempt's mean return of `summary` (over the attempts played) in `unit`. */
export function returnsIn(unit: ReturnUnitV1, summary: MetricsSummaryV1): number[] {
  return summary.perAttempt.map((a) => a.meanReturn / unit.rewardPerReturn);
}

/** Each attempt's mean return, overall, with `withMemory` minus with `other` (same tasks), in `unit`. */
export function returnBenefit(
  unit: ReturnUnitV1,
  withMemory: MetaEpisodeMetricsV1,
  other: MetaEpisodeMetricsV1,
): number[] {
  const without = returnsIn(unit, other.overall);
  return returnsIn(unit, withMemory.overall).map((r, k) => r - (without[k] ?? 0));
}

/** The return unit of `config`'s env under its evaluation env options, when the env names one. */
function returnUnitOf(config: TrainConfig): ReturnUnitV1 | undefined {
  const definition = envDefinition(config.env.id);
  const unit = definition.labels?.returnUnit;
  const scale = definition.opponents?.match?.rewardPerReturn;
  if (unit === undefined || scale === undefined) return undefined;
  return { unit, rewardPerReturn: scale({ ...config.env.options, ...config.eval.envOptions }) };
}

/**
 * The method, memory, config and opponents `options` evaluate with, given what the policy trained with
 * (`trainedWith`; undefined for anything but a run).
 */
export function evaluationSetup(
  options: Omit<EvaluatePolicyOptions, 'episodes' | 'attempts' | 'seed' | 'signal'>,
  trained: TrainedWithV1 | undefined,
): { method: MethodId; memory: MemoryKind; config: TrainConfig; opponents: readonly string[] } {
  const { preset } = options;
  const env = options.env ?? trained?.env;
  // Without a method, a run plays with the method and memory it trained with.
  const own = options.method === undefined ? trained : undefined;
  const method = own?.method ?? options.method ?? 'reflexion';
  // On its own env, a run plays its own task (a preset does not know a run's env options).
  const task = trained !== undefined && trained.env === env ? trained.task : {};
  const config = resolveTrainConfig(mergeConfig(task, options.overrides), {
    preset,
    method,
    ...(env === undefined ? {} : { env }),
  });
  const opponents = options.opponents ?? [...config.eval.inDomain, ...config.eval.outOfDomain];
  const memory = options.memory ?? own?.memory ?? METHODS[method].memory;
  return { method, memory, config, opponents };
}

export async function evaluatePolicy(options: EvaluatePolicyOptions): Promise<EvaluationV1> {
  const { method, memory, config, opponents } = evaluationSetup(options, await trainedWith(options.policy));
  const env = config.env.id;
  const load = (spec: string, option?: string) =>
    loadPolicy({
      policy: spec,
      ...(option === undefined ? {} : { option }),
      env,
      envOptions: config.env.options,
      style: config.rollout.style,
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    });
  const { policy, dispose } = await load(options.policy);
  let donor: LoadedPolicy | undefined;
  try {
    if (options.noteDonor !== undefined) donor = await load(options.noteDonor, 'noteDonor');
    const evaluation = await evaluateWithMemory({
      config,
      policy,
      method,
      memory,
      opponents,
      episodes: options.episodes,
      attempts: options.attempts,
      seed: options.seed,
      ...(options.baseline === undefined ? {} : { baseline: options.baseline }),
      ...(options.foreignNotes === undefined ? {} : { foreignNotes: options.foreignNotes }),
      ...(donor ? { noteDonor: donor.policy } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const without = evaluation.withoutMemory?.result.metrics;
    const ceiling =
      without && identificationCeiling(without, identifiableOpponents(envDefinition(env), opponents));
    const returnUnit = returnUnitOf(config);
    return {
      env,
      method,
      memory,
      opponents,
      ...evaluation,
      ...(ceiling === undefined ? {} : { identificationCeiling: ceiling }),
      ...(returnUnit === undefined ? {} : { returnUnit }),
      code: trainerCode(),
      machine: trainerMachine(),
    };
  } finally {
    await donor?.dispose();
    await dispose();
  }
}
