/**
 * Rollouts on a serving engine: a `LearnerV1` whose policy samples through an OpenAI-compatible server
 * (`mage serve`, vLLM) from a LoRA adapter, while updates run on the local learner. After every update
 * (and after `load`) the adapter is written as a PEFT directory and pushed with vLLM's
 * `POST /v1/load_lora_adapter` (`load_inplace`), so the next rollout samples from the new weights.
 * Design: architecture/serve.md.
 */

import { join } from 'node:path';
import { createRemotePolicy, type LearnerV1, type PolicyV1, RolloutError } from '@mage-rl/core';
import { exportPeftAdapter, type LoraOptions, type OnnxLearner } from '@mage-rl/learner';

export interface ServedLearnerOptions {
  /** The local learner, with LoRA adapters (its base weights are the server's model). */
  readonly learner: OnnxLearner;
  readonly lora: LoraOptions;
  /** The server's API base URL, e.g. `http://127.0.0.1:8000/v1`. */
  readonly baseURL: string;
  /** The name the adapter is loaded under (and rollouts request as `model`). */
  readonly adapterName: string;
  /** Where adapter versions are written for the server to read (a directory the server can see). */
  readonly adapterDir: string;
  readonly apiKey?: string;
  readonly fetch?: typeof fetch;
  /** Options of the remote policy (concurrency, default max tokens). */
  readonly concurrency?: number;
  readonly defaultMaxTokens?: number;
}

export interface ServedLearner extends LearnerV1 {
  /** Adapter versions pushed so far. */
  readonly pushes: number;
  /** Writes the current adapter and loads it into the server. */
  push(): Promise<void>;
}

export function createServedLearner(o: ServedLearnerOptions): ServedLearner {
  const { learner } = o;
  if (learner.adapters.size === 0) {
    throw new RolloutError(
      'POLICY_FAILURE',
      'Rollouts on a server need a learner with LoRA adapters to push.',
    );
  }
  const doFetch = o.fetch ?? fetch;
  const url = `${o.baseURL.replace(/\/+$/, '')}/load_lora_adapter`;
  let pushes = 0;
  let pushed: Promise<void> | null = null;

  async function push(): Promise<void> {
    // Versions alternate between two directories: the server may still read the previous one.
    const dir = join(o.adapterDir, `v${pushes % 2}`);
    await exportPeftAdapter({ dir, config: learner.config, lora: o.lora, adapters: learner.adapters });
    const res = await doFetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
      },
      body: JSON.stringify({ lora_name: o.adapterName, lora_path: dir, load_inplace: true }),
    }).catch((cause: unknown) => {
      throw new RolloutError('POLICY_FAILURE', `Cannot reach ${url}: ${String(cause)}`, { cause });
    });
    if (!res.ok) {
      throw new RolloutError(
        'POLICY_FAILURE',
        `${url} refused the adapter (${res.status}): ${await res.text()}`,
        {
          context: { status: res.status },
        },
      );
    }
    pushes++;
  }
  /** The first push happens before the first rollout. */
  const ensurePushed = () => {
    pushed ??= push();
    return pushed;
  };

  const remote = createRemotePolicy({
    baseURL: o.baseURL,
    model: o.adapterName,
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    ...(o.fetch ? { fetch: o.fetch } : {}),
    ...(o.concurrency ? { concurrency: o.concurrency } : {}),
    ...(o.defaultMaxTokens ? { defaultMaxTokens: o.defaultMaxTokens } : {}),
  });
  const policy: PolicyV1 = {
    specificationVersion: 'v1',
    id: learner.id,
    async generate(requests, sampling) {
      await ensurePushed();
      return remote.generate(requests, sampling);
    },
  };

  return {
    specificationVersion: 'v1',
    id: learner.id,
    policy,
    ...(learner.packedRows ? { packedRows: learner.packedRows } : {}),
    ...(learner.referenceAhead ? { referenceAhead: true } : {}),
    get pushes() {
      return pushes;
    },
    push,
    logprobs: (rows) => learner.logprobs(rows),
    async update(request) {
      const result = await learner.update(request);
      pushed = push();
      await pushed;
      return result;
    },
    save: (dir) => learner.save(dir),
    async load(dir) {
      await learner.load(dir);
      pushed = push();
      await pushed;
    },
    dispose: () => learner.dispose(),
  };
}
