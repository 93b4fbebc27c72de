/**
 * The fake service's forward and forward/backward: Tinker's built-in losses over the fake model, per
 * datum, with the losses' documented inputs (`target_tokens`; `weights` for `cross_entropy`;
 * `logprobs` and `advantages` for `importance_sampling` and `ppo`) and the `logprobs` output.
 */

import { at } from '@mage-rl/core';
import type { Datum, ForwardBackwardInput, TensorData } from '../api/wire';
import { addLogprobGradient, contextKey, type FakeModelWeights, logSoftmaxOf } from './fake-model';

/** A request the fake refuses as Tinker would (a `user` failure of the future). */
export class FakeUserError extends Error {}

const SUPPORTED = ['cross_entropy', 'importance_sampling', 'ppo'] as const;

function column(datum: Datum, name: string, length: number, fallback?: number): Float64Array {
  const t: TensorData | undefined = datum.loss_fn_inputs[name];
  if (t === undefined) {
    if (fallback !== undefined) return new Float64Array(length).fill(fallback);
    throw new FakeUserError(`loss_fn_inputs.${name} is required for this loss`);
  }
  if (t.data.length !== length) {
    throw new FakeUserError(`loss_fn_inputs.${name} has ${t.data.length} values for ${length} input tokens`);
  }
  return Float64Array.from(t.data);
}

function tokensOf(datum: Datum): number[] {
  const out: number[] = [];
  for (const chunk of datum.model_input.chunks) {
    if (chunk.type !== 'encoded_text')
      throw new FakeUserError(`chunk type ${String(chunk.type)} is not supported`);
    out.push(...chunk.tokens);
  }
  return out;
}

/**
 * Log-probs of every datum's targets and the summed loss; with `grads`, also the loss's gradient with
 * respect to the logits (accumulated, as Tinker accumulates until `optim_step`).
 */
export function forwardBackward(
  weights: FakeModelWeights,
  input: ForwardBackwardInput,
  vocabSize: number,
  grads: Map<string, Float64Array> | null,
): { outputs: Record<string, TensorData>[]; loss: number } {
  if (!(SUPPORTED as readonly string[]).includes(input.loss_fn)) {
    throw new FakeUserError(
      `the fake service supports the losses ${SUPPORTED.join(', ')}, not ${input.loss_fn}`,
    );
  }
  const low = input.loss_fn_config?.clip_low_threshold ?? 0.8;
  const high = input.loss_fn_config?.clip_high_threshold ?? 1.2;
  let loss = 0;
  const outputs = input.data.map((datum) => {
    const tokens = tokensOf(datum);
    const n = tokens.length;
    const targets = column(datum, 'target_tokens', n);
    const lps = new Array<number>(n);
    const weightsIn = input.loss_fn === 'cross_entropy' ? column(datum, 'weights', n, 1) : null;
    const sampling = input.loss_fn === 'cross_entropy' ? null : column(datum, 'logprobs', n);
    const advantages = input.loss_fn === 'cross_entropy' ? null : column(datum, 'advantages', n);
    for (let i = 0; i < n; i++) {
      const target = at(targets, i);
      if (!(Number.isInteger(target) && target >= 0))
        throw new FakeUserError(`target token ${target} is not an id`);
      if (target >= vocabSize) {
        // Context-only ids (prompt text): log-prob 0, and nothing may train on them.
        const trained = weightsIn ? at(weightsIn, i) : at(advantages as Float64Array, i);
        if (trained !== 0) {
          throw new FakeUserError(
            `target token ${target} is outside the output vocabulary 0..${vocabSize - 1}`,
          );
        }
        lps[i] = 0;
        continue;
      }
      const key = contextKey(tokens, i + 1);
      const lp = logSoftmaxOf(weights, key, vocabSize);
      const logprob = at(lp, target);
      lps[i] = logprob;
      let dLoss: number;
      if (weightsIn) {
        const w = at(weightsIn, i);
        loss -= w * logprob;
        dLoss = -w;
      } else {
        const ratio = Math.exp(logprob - at(sampling as Float64Array, i));
        const a = at(advantages as Float64Array, i);
        if (input.loss_fn === 'importance_sampling') {
          loss -= ratio * a;
          dLoss = -ratio * a;
        } else {
          const clipped = Math.min(Math.max(ratio, low), high);
          const unclippedWins = ratio * a <= clipped * a;
          loss -= Math.min(ratio * a, clipped * a);
          dLoss = unclippedWins ? -ratio * a : 0;
        }
      }
      if (grads) addLogprobGradient(grads, key, lp, target, dLoss);
    }
    return { logprobs: { data: lps, dtype: 'float32' as const, shape: [n] } };
  });
  return { outputs, loss };
}
