/**
 * Full next-token distributions over a sequence, for `top_logprobs`: one forward pass of the prompt and
 * response (right-padded to a length bucket) returning log-softmax rows [T, vocab]. The generator returns
 * only each sampled token's log-prob, so top-k alternatives take this extra pass, on the same runner and
 * persistent weights.
 */

import { MageError } from '@mage-rl/core';
import {
  bucketLength,
  buildDistributionGraph,
  type GraphRunner,
  type LoraOptions,
  type ModelConfig,
  serializeGraph,
} from '@mage-rl/learner';

export interface TopLogprob {
  readonly token: number;
  readonly logprob: number;
}

/**
 * The `k` most likely tokens (with log-probs) at each response position: position i is the distribution
 * the i-th response token was drawn from. Adapter tensors must already be in the runner.
 */
export async function topLogprobs(
  runner: GraphRunner,
  o: {
    readonly config: ModelConfig;
    readonly prompt: readonly number[];
    readonly response: readonly number[];
    readonly k: number;
    readonly lora?: LoraOptions;
    readonly layoutKey: string;
  },
): Promise<TopLogprob[][]> {
  const c = o.config;
  const seq = [...o.prompt, ...o.response];
  if (o.response.length === 0) return [];
  const T = bucketLength(seq.length, 16, Math.max(c.maxPositions, seq.length));
  const R = bucketLength(o.response.length, 16, T);
  const key = `serve:dist:${o.layoutKey}:${T}x${R}`;
  await runner.load(key, () =>
    serializeGraph(
      buildDistributionGraph({
        config: c,
        batch: 1,
        seqLen: T,
        rows: R,
        ...(o.lora ? { lora: o.lora } : {}),
      }),
    ),
  );
  const ids = new BigInt64Array(T);
  seq.forEach((t, i) => {
    ids[i] = BigInt(t);
  });
  // Row i is the distribution response token i was drawn from: position prompt − 1 + i.
  const rows = new BigInt64Array(R);
  for (let i = 0; i < o.response.length; i++) rows[i] = BigInt(o.prompt.length - 1 + i);
  const out = await runner.run(
    key,
    { input_ids: { data: ids, dims: [1, T] }, rows: { data: rows, dims: [R] } },
    { fetches: ['logprobs'] },
  );
  const lp = out.logprobs?.data;
  if (!(lp instanceof Float32Array))
    throw new MageError('RUNNER_FAILURE', 'The distribution run returned no log-probs.');
  const V = c.vocabSize;
  return o.response.map((_, i) => {
    const row = lp.subarray(i * V, (i + 1) * V);
    return topK(row, o.k);
  });
}

/** The `k` largest entries of `row` by value (ties by id). */
function topK(row: Float32Array, k: number): TopLogprob[] {
  const best: TopLogprob[] = [];
  row.forEach((logprob, token) => {
    if (best.length === k && logprob <= (best[k - 1] as TopLogprob).logprob) return;
    let i = best.length;
    while (i > 0 && (best[i - 1] as TopLogprob).logprob < logprob) i--;
    best.splice(i, 0, { token, logprob });
    if (best.length > k) best.pop();
  });
  return best;
}
