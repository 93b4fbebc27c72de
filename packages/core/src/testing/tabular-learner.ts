/**
 * A real, tiny `LearnerV1` for tests: a softmax policy over a fixed list of candidate responses per
 * prompt key. Every response is one token (token id = candidate index), so log-probs are exact; the
 * prompt key is carried in `promptTokens` as its UTF-16 code units, so any instance (a reference copy
 * too) can score rows another instance sampled. Training follows the per-token weights of the
 * `TokenLossFn`: the gradient of −Σ w·log p (plus the entropy bonus) through the softmax, clipped to a
 * global norm, then Adam or SGD. Non-finite losses or gradients skip the step; three in a row throw
 * `NumericInstabilityError`.
 */

import type { LearnerV1, PolicyRequestV1, PolicyV1 } from '@mage-rl/spec';
import { at, ConfigError, firstIssue, throwIfAborted } from '@mage-rl/spec';
import { z } from 'zod';
import { createRng } from '../rng';
import { unpackLogprobRows } from '../training/packing';
import { loadTabular, saveTabular } from './tabular-checkpoint';
import { decodePromptKey } from './tabular-prompt-key';
import { sampleResponse } from './tabular-sample';
import { checkRows, logprobsOf, type TabularSettings, type TabularState } from './tabular-state';
import { updateTabular } from './tabular-update';

export { decodePromptKey, encodePromptKey } from './tabular-prompt-key';

export interface TabularLearnerOptions {
  /** The responses the policy chooses between (at least 2); token id = index. */
  readonly candidates: readonly string[];
  /** Seeds mini-batch shuffling and requests without their own seed. */
  readonly seed: number | string;
  /** Learning rate. Default 0.1. */
  readonly lr?: number;
  /** Default `adam`. */
  readonly optimizer?: 'adam' | 'sgd';
  /** Global gradient-norm clip. Default 1. */
  readonly maxGradNorm?: number;
  /** Consecutive NaN/Inf steps before `NumericInstabilityError`. Default 3. */
  readonly maxConsecutiveSkips?: number;
  /** The table key of a request. Default: the content of the last message. */
  readonly promptKey?: (request: PolicyRequestV1) => string;
  /** Default `tabular`. */
  readonly id?: string;
}

export interface TabularLearner extends LearnerV1 {
  /** Optimizer steps taken so far. */
  readonly step: number;
  /** Current probabilities of the candidates for a prompt key (uniform for unseen keys). */
  probabilities(key: string): Float64Array;
  /** Keys with trained logits, in first-update order. */
  keys(): string[];
}

const optionsSchema = z.object({
  candidates: z.array(z.string(), { error: 'a list of at least 2 strings' }).min(2, {
    error: 'a list of at least 2 strings',
  }),
  lr: z.number({ error: 'a finite number > 0' }).positive({ error: 'a finite number > 0' }),
  optimizer: z.enum(['adam', 'sgd'], { error: "'adam' or 'sgd'" }),
  maxGradNorm: z.number({ error: 'a finite number > 0' }).positive({ error: 'a finite number > 0' }),
  maxConsecutiveSkips: z.int({ error: 'an integer >= 1' }).min(1, { error: 'an integer >= 1' }),
});

/** The options with their defaults, validated; a bad one is a `ConfigError` naming it and its value. */
function resolveOptions(options: TabularLearnerOptions): TabularSettings & { candidates: string[] } {
  const parsed = optionsSchema.safeParse({
    candidates: options.candidates,
    lr: options.lr ?? 0.1,
    optimizer: options.optimizer ?? 'adam',
    maxGradNorm: options.maxGradNorm ?? 1,
    maxConsecutiveSkips: options.maxConsecutiveSkips ?? 3,
  });
  if (parsed.success) return parsed.data;
  const { path, value, message } = firstIssue(parsed.error, options);
  throw new ConfigError(`createTabularLearner: ${path} must be ${message}, got ${JSON.stringify(value)}.`, {
    path,
    context: { value },
  });
}

/** A `LearnerV1` over a table of candidate logits (see the module comment). */
export function createTabularLearner(options: TabularLearnerOptions): TabularLearner {
  const { candidates, ...settings } = resolveOptions(options);
  const id = options.id ?? 'tabular';
  const promptKey = options.promptKey ?? ((r: PolicyRequestV1) => r.messages.at(-1)?.content ?? '');
  const state: TabularState = {
    candidates,
    settings,
    rng: createRng(options.seed),
    table: new Map(),
    step: 0,
    consecutiveSkips: 0,
    unseeded: 0,
  };
  const policy: PolicyV1 = {
    specificationVersion: 'v1',
    id,
    async generate(requests, sampling = {}) {
      throwIfAborted(sampling.signal);
      return requests.map((r) => sampleResponse(state, promptKey(r), r, sampling));
    },
  };
  return {
    specificationVersion: 'v1',
    id,
    policy,
    get step() {
      return state.step;
    },
    probabilities: (key) => logprobsOf(state, key).map(Math.exp),
    keys: () => [...state.table.keys()],
    packedRows: { maxTokens: Number.MAX_SAFE_INTEGER },
    async logprobs(input) {
      const lp = new Float64Array(candidates.length);
      return input.map((one) => {
        const rows = unpackLogprobRows([one]);
        checkRows(state, rows);
        const out = new Float32Array(rows.reduce((k, r) => k + r.responseTokens.length, 0));
        let k = 0;
        for (const r of rows) {
          logprobsOf(state, decodePromptKey(r.promptTokens), lp);
          for (const t of r.responseTokens) out[k++] = at(lp, t);
        }
        return out;
      });
    },
    update: (request) => updateTabular(state, request),
    save: (dir) => saveTabular(state, dir),
    load: (dir) => loadTabular(state, dir),
    async dispose() {
      state.table = new Map();
    },
  };
}
