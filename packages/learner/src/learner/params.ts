/**
 * The learner's parameters: base weights, LoRA adapters, which of them train, and the weights version
 * the runner holds (bumped on every upload, so sampled log-probs can be told current or stale). A
 * training learner keeps its weights on this thread (the optimizer updates them) and uploads copies;
 * an inference-only one hands them to the runner and keeps none (`handOverWeights`).
 */

import { InvalidArgumentError, type Rng } from '@mage-rl/core';
import { initLora, type LoraOptions, loraSpecs } from '../lora/lora';
import type { ModelConfig } from '../model/config';
import { initParams, type ParamSpec, type ParamStore, paramSpecs } from '../model/params';
import type { GraphRunner } from '../runtime/runner';
import type { TensorValue } from '../runtime/session';

export interface LearnerParams {
  /** Every base weight. */
  readonly specs: readonly ParamSpec[];
  /** The trained parameters: the adapters with LoRA, else the base weights. */
  readonly trainSpecs: readonly ParamSpec[];
  readonly weights: ParamStore;
  /** LoRA adapters (empty without LoRA). */
  readonly adapters: ParamStore;
  /** The store the optimizer updates (`adapters` with LoRA, else `weights`). */
  readonly trainStore: ParamStore;
  /** Bumped whenever the runner gets new weights. */
  version: number;
}

export interface InitialParams {
  /** Initial weights by HF name (default: random). Copied unless taken (`createLearnerParams`). */
  readonly weights?: ReadonlyMap<string, Float32Array>;
  readonly lora?: LoraOptions;
  /** Initial LoRA adapters (default: A random, B zero). Copied. */
  readonly adapters?: ReadonlyMap<string, Float32Array>;
}

/** The tensor `name` of `store` (throws when it is missing). */
export function tensorOf(store: ReadonlyMap<string, Float32Array>, name: string): Float32Array {
  const t = store.get(name);
  if (t === undefined) throw new InvalidArgumentError(`No parameter '${name}'.`);
  return t;
}

/**
 * Copies of the given parameters, else random ones from `rng` (streams `init` and `lora`; the given
 * weights are not drawn first: for a 0.6 B-parameter model that took longer than reading them). With
 * `takeWeights` the given weight arrays themselves, unless a copy: an inference-only learner hands them
 * to its runner, and a copy would hold them twice while it is made.
 */
export function createLearnerParams(
  config: ModelConfig,
  initial: InitialParams,
  rng: Rng,
  takeWeights: boolean,
): LearnerParams {
  const specs = paramSpecs(config);
  const weights: ParamStore =
    initial.weights === undefined
      ? initParams(config, rng.split('init'))
      : checkedWeights(specs, initial.weights, takeWeights);
  const { lora } = initial;
  if (lora === undefined)
    return { specs, trainSpecs: specs, weights, adapters: new Map(), trainStore: weights, version: 0 };
  const adapters = initLora(config, lora, rng.split('lora'));
  if (initial.adapters !== undefined) {
    for (const [name, dst] of adapters) {
      const a = initial.adapters.get(name);
      if (a === undefined || a.length !== dst.length)
        throw new InvalidArgumentError(`Initial adapters lack '${name}'.`);
      dst.set(a);
    }
  }
  return { specs, trainSpecs: loraSpecs(config, lora), weights, adapters, trainStore: adapters, version: 0 };
}

/** The parameters a checkpoint holds: the base weights, then the adapters with LoRA. */
export const savedSpecs = (p: LearnerParams): readonly ParamSpec[] =>
  p.trainStore === p.weights ? p.specs : [...p.specs, ...p.trainSpecs];

/** The live tensor of a weight or adapter. */
export const liveTensor = (p: LearnerParams, name: string): Float32Array =>
  p.adapters.get(name) ?? tensorOf(p.weights, name);

/** The runner's feeds of the weights (only the trained ones with `trainedOnly`). */
function weightFeeds(p: LearnerParams, trainedOnly: boolean): Record<string, TensorValue> {
  const feeds: Record<string, TensorValue> = {};
  if (!trainedOnly)
    for (const s of p.specs) feeds[s.name] = { data: tensorOf(p.weights, s.name), dims: s.shape };
  for (const s of p.trainSpecs) feeds[s.name] = { data: tensorOf(p.trainStore, s.name), dims: s.shape };
  return feeds;
}

/**
 * Uploads copies of the weights to the runner (only the trained ones after an optimizer step) and
 * bumps the version. The learner keeps its own for the optimizer, checkpoints and merges.
 */
export async function syncWeights(runner: GraphRunner, p: LearnerParams, trainedOnly = false): Promise<void> {
  await runner.setPersistent(weightFeeds(p, trainedOnly));
  p.version++;
}

/**
 * Hands every weight and adapter to the runner (`PersistentOptions.transfer`: a worker runner takes
 * their memory, the arrays here are detached) and empties the stores, then bumps the version: the
 * weights exist once in the process, where the sessions run. For a learner that never trains.
 */
export async function handOverWeights(runner: GraphRunner, p: LearnerParams): Promise<void> {
  await runner.setPersistent(weightFeeds(p, false), { transfer: true });
  p.weights.clear();
  p.adapters.clear();
  p.version++;
}

/**
 * Every weight of `specs` from `given`, checked to be there with its size: copies, or with `take` the
 * arrays themselves.
 */
function checkedWeights(
  specs: readonly ParamSpec[],
  given: ReadonlyMap<string, Float32Array>,
  take: boolean,
): ParamStore {
  const weights: ParamStore = new Map();
  for (const s of specs) {
    const size = s.shape.reduce((p, d) => p * d, 1);
    const w = given.get(s.name);
    if (w === undefined || w.length !== size) {
      throw new InvalidArgumentError(`Initial weights lack '${s.name}' of ${size} values.`);
    }
    weights.set(s.name, take ? w : Float32Array.from(w));
  }
  return weights;
}
