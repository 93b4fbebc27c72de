/**
 * The learners of `learner.backend: tinker`: the trained LoRA on the Tinker service and, when the loss
 * has a KL term, a second LoRA of the same base model that is never updated (a fresh LoRA adds nothing
 * to the base model, so its log-probs are the reference's). The service takes token ids, so the base
 * model's tokenizer comes from `--model` (a directory holding its `tokenizer.json` and
 * `tokenizer_config.json`). Design: architecture/tinker.md.
 */

import { ConfigError, type LearnerV1 } from '@mage-rl/core';
import { loadHfTokenizer } from '@mage-rl/learner';
import type { TrainConfig } from '@mage-rl/recipes';
import {
  createTinkerClient,
  createTinkerLearner,
  type TinkerLearnerOptions,
  type TinkerLossMapping,
  type TinkerTokenizer,
} from '@mage-rl/tinker';

/** The learner a run trains, the reference of its KL term, and what to release after the run. */
export interface RunLearners {
  /** The directory the run's record names as its warm start (the model or tokenizer directory). */
  readonly warmStart: string;
  readonly learner: LearnerV1;
  readonly reference?: Pick<LearnerV1, 'logprobs' | 'packedRows'>;
  /**
   * The numeric runtimes the learner computes with on this machine, recorded in the run's machine.json
   * (the local learner: onnxruntime-node's version); absent when the learner computes elsewhere (Tinker).
   */
  readonly runtime?: Readonly<Record<string, string>>;
  dispose(): Promise<void>;
}

/** The learner options `config` asks for (without client and tokenizer), checked. */
export function tinkerLearnerSettingsOf(
  config: TrainConfig,
  seed: number,
): Omit<TinkerLearnerOptions, 'client' | 'tokenizer'> & {
  readonly baseURL: string;
  readonly apiKeyEnv: string;
} {
  const { baseURL, baseModel, loraRank, apiKeyEnv, loss } = config.learner.tinker;
  if (baseURL === null || baseModel === null) {
    throw new ConfigError(
      "learner.tinker.baseURL and learner.tinker.baseModel must be set for learner.backend 'tinker'.",
      {
        path: 'learner.tinker',
      },
    );
  }
  const mapping: TinkerLossMapping =
    loss === 'ppo'
      ? { kind: 'ppo', clipLow: config.ppo.clip, clipHigh: config.ppo.clip }
      : loss === 'importance_sampling'
        ? { kind: 'importance_sampling' }
        : { kind: 'exact' };
  return {
    baseURL,
    apiKeyEnv,
    baseModel,
    loraRank,
    seed: `${seed}/learner`,
    adam: {
      learningRate: config.ppo.lr,
      weightDecay: config.ppo.weightDecay,
      gradClipNorm: config.ppo.gradClip,
    },
    loss: mapping,
  };
}

/** The API key from the environment variable the config names; a `ConfigError` when it is unset. */
export function tinkerApiKey(apiKeyEnv: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = env[apiKeyEnv];
  if (!key) {
    throw new ConfigError(
      `learner.tinker.apiKeyEnv names ${apiKeyEnv}, which is not set: export the Tinker API key in it, or name another variable.`,
      { path: 'learner.tinker.apiKeyEnv' },
    );
  }
  return key;
}

/** Creates the run's learners on the service (see the module comment). */
export async function tinkerLearners(
  config: TrainConfig,
  options: {
    readonly seed: number;
    readonly model?: string;
    readonly signal?: AbortSignal;
    /** Default: the tokenizer files of `model`. */
    readonly tokenizer?: TinkerTokenizer;
    readonly env?: NodeJS.ProcessEnv;
  },
): Promise<RunLearners> {
  const { baseURL, apiKeyEnv, ...settings } = tinkerLearnerSettingsOf(config, options.seed);
  if (options.model === undefined) {
    throw new ConfigError(
      "learner.backend 'tinker' needs --model: a directory with the base model's tokenizer.json and tokenizer_config.json (the service takes token ids).",
      { path: 'model' },
    );
  }
  const apiKey = tinkerApiKey(apiKeyEnv, options.env);
  const tokenizer = options.tokenizer ?? (await loadHfTokenizer(options.model));
  const signal = options.signal ? { signal: options.signal } : {};
  const learner = await createTinkerLearner({
    client: createTinkerClient({ baseURL, apiKey }),
    tokenizer,
    ...settings,
    ...signal,
  });
  const reference =
    config.ppo.klCoef > 0
      ? await createTinkerLearner({
          client: createTinkerClient({ baseURL, apiKey }),
          tokenizer,
          ...settings,
          seed: `${options.seed}/reference`,
          id: `tinker-reference:${settings.baseModel}`,
          ...signal,
        })
      : undefined;
  return {
    warmStart: options.model,
    learner,
    ...(reference ? { reference } : {}),
    async dispose() {
      await learner.dispose();
      await reference?.dispose();
    },
  };
}
