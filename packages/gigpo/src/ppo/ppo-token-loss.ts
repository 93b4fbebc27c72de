/**
 * The PPO token objective (clipped ratio, dual clip, k3 KL) as a `TokenLossFn` for the learner.
 *
 * Per token j with ratio ρ = exp(logπ − logπ_old) and advantage A:
 *   ℓ_pg = max(−A·ρ, −A·clip(ρ, 1 − ε_low, 1 + ε_high)),   and for A < 0: ℓ_pg = min(ℓ_pg, −c·A)  (dual clip)
 *   ℓ_kl = klCoef · k3(logπ_ref − logπ)                      (linear beyond k3 = 10: the gradient is held, kl.ts;
 *                                                             with `klUpperEdge: 'release-advantaged'` flat beyond d_hi where A ≠ 0)
 * loss = Σ_j s_j (ℓ_pg + ℓ_kl) with s_j from the aggregation (token-mean: 1/N).
 * The learner receives w_j = −∂loss/∂logπ_j and back-propagates −Σ w·logπ. Entropy is not here: it needs
 * the full distribution, so the learner adds it (`LearnerUpdateRequest.entropyCoef`).
 */

import type { PpoWeightFormV1, TokenLossFn, TokenLossInput, TokenLossOutput } from '@mage-rl/spec';
import { at, ConfigError } from '@mage-rl/spec';
import { aggregationScales, checkTokenInput, type LossAggregation } from './aggregation';
import { DEFAULT_KL_CLAMP, k3, k3Grad, klEdges } from './kl';

/** What the KL does beyond its upper edge (`PpoTokenLossOptions.klUpperEdge`). */
export type KlUpperEdge = 'hold' | 'release-advantaged';
export const KL_UPPER_EDGES: readonly KlUpperEdge[] = ['hold', 'release-advantaged'];

export interface PpoTokenLossOptions {
  /** ε: ratios are clipped to [1 − ε, 1 + ε]. Default 0.2. */
  readonly clip?: number;
  /** Upper ε if different from `clip` ("clip-higher"). Default = `clip`. */
  readonly clipHigh?: number;
  /** Dual-clip constant c > 1 for A < 0 (loss capped at −c·A); `null` turns it off. Default 3. */
  readonly dualClip?: number | null;
  /** KL-to-reference coefficient (0.1 for Tic-Tac-Toe and Kuhn in the presets). Default 0. */
  readonly klCoef?: number;
  /** The k3 value beyond which it continues along its tangent (its gradient held). Default 10. */
  readonly klClamp?: number;
  /**
   * Beyond the upper edge d_hi (a sampled token the policy has made e^d_hi ≈ 13 times less likely than the
   * reference): `hold` (default) keeps pulling every such token back along the tangent;
   * `release-advantaged` keeps pulling only tokens with no advantage (A = 0, such as notes trained at
   * `reflectWeight` 0, whose only anchor is the KL) and lets the KL go flat (gradient 0) on tokens their
   * advantages pushed down. architecture/gigpo.md has the measurements behind both.
   */
  readonly klUpperEdge?: KlUpperEdge;
  /** Default `token-mean`. */
  readonly aggregation?: LossAggregation;
}

function check(path: string, ok: boolean, value: unknown, rule: string): void {
  if (!ok)
    throw new ConfigError(`ppoTokenLoss: ${path} must be ${rule}, got ${JSON.stringify(value)}.`, { path });
}

/**
 * Stats (token means, whatever the aggregation): `policyLoss`, `klLoss` (coefficient included), `refKl`
 * (mean k3 to the reference; absent without a reference, when the KL coefficient is 0), `approxKl` (mean of logπ_old − logπ), `clipFraction`
 * (tokens where the clipped term is the active one), `dualClipFraction`, `ratioMean`, `tokens`.
 */
export function ppoTokenLoss(options: PpoTokenLossOptions = {}): TokenLossFn {
  const clipLow = options.clip ?? 0.2;
  const clipHigh = options.clipHigh ?? clipLow;
  const dual = options.dualClip === undefined ? 3 : options.dualClip;
  const klCoef = options.klCoef ?? 0;
  const klClamp = options.klClamp ?? DEFAULT_KL_CLAMP;
  const aggregation = options.aggregation ?? 'token-mean';
  const klUpperEdge = options.klUpperEdge ?? 'hold';
  check('clip', Number.isFinite(clipLow) && clipLow > 0 && clipLow < 1, clipLow, 'a number in (0, 1)');
  check('clipHigh', Number.isFinite(clipHigh) && clipHigh > 0, clipHigh, 'a positive number');
  check('dualClip', dual === null || (Number.isFinite(dual) && dual > 1), dual, 'null or a number > 1');
  check('klCoef', Number.isFinite(klCoef) && klCoef >= 0, klCoef, 'a number >= 0');
  check('klClamp', Number.isFinite(klClamp) && klClamp > 0, klClamp, 'a positive number');
  check(
    'aggregation',
    aggregation === 'token-mean' || aggregation === 'seq-mean-token-mean',
    aggregation,
    "'token-mean' or 'seq-mean-token-mean'",
  );
  check(
    'klUpperEdge',
    KL_UPPER_EDGES.includes(klUpperEdge),
    klUpperEdge,
    KL_UPPER_EDGES.map((e) => `'${e}'`).join(' or '),
  );
  const releaseAdvantaged = klUpperEdge === 'release-advantaged';
  const lo = 1 - clipLow;
  const hi = 1 + clipHigh;
  const dualC = dual ?? Number.POSITIVE_INFINITY;
  const edges = klEdges(klClamp);
  // k3 at d_hi: the flat value of a released token.
  const klAtUpperEdge = k3(edges.hi, edges);

  const fn = (input: TokenLossInput): TokenLossOutput => {
    const n = checkTokenInput(input, klCoef > 0, 'ppoTokenLoss');
    const { logprobs, oldLogprobs, advantages } = input;
    // Checked above: present whenever klCoef > 0.
    const refLogprobs = klCoef > 0 ? input.refLogprobs : undefined;
    const scales = aggregationScales(n, input.rowOfToken, aggregation);
    const weights = new Float32Array(n);
    let loss = 0;
    let pgSum = 0;
    let klSum = 0;
    let approxKl = 0;
    let ratioSum = 0;
    let clipped = 0;
    let dualClipped = 0;
    for (let j = 0; j < n; j++) {
      const lp = at(logprobs, j);
      const logRatio = lp - at(oldLogprobs, j);
      const ratio = Math.exp(logRatio);
      const a = at(advantages, j);
      const s = at(scales, j);
      const unclipped = -a * ratio;
      const clippedRatio = ratio < lo ? lo : Math.min(ratio, hi);
      const clippedLoss = -a * clippedRatio;
      let pg: number;
      // d pg / d logπ
      let grad: number;
      if (clippedLoss > unclipped) {
        pg = clippedLoss;
        grad = 0; // the clipped term is active only where the ratio is outside the range: constant
        clipped++;
      } else {
        pg = unclipped;
        grad = unclipped;
      }
      if (a < 0 && pg > -dualC * a) {
        pg = -dualC * a;
        grad = 0;
        dualClipped++;
      }
      let tokenLoss = pg;
      if (refLogprobs !== undefined) {
        const d = at(refLogprobs, j) - lp;
        const released = releaseAdvantaged && a !== 0 && d > edges.hi;
        const k = released ? klAtUpperEdge : k3(d, edges);
        klSum += k;
        tokenLoss += klCoef * k;
        if (!released) grad += klCoef * k3Grad(d, edges);
      }
      loss += s * tokenLoss;
      weights[j] = 0 - s * grad; // never −0
      pgSum += pg;
      approxKl -= logRatio;
      ratioSum += ratio;
    }
    const inv = n > 0 ? 1 / n : 0;
    return {
      weights,
      loss,
      stats: {
        policyLoss: pgSum * inv,
        klLoss: klCoef * klSum * inv,
        // Without a reference there is no KL to report (0 would read as "the policy did not move").
        ...(refLogprobs === undefined ? {} : { refKl: klSum * inv }),
        approxKl: approxKl * inv,
        clipFraction: clipped * inv,
        dualClipFraction: dualClipped * inv,
        ratioMean: ratioSum * inv,
        tokens: n,
      },
    };
  };
  // The same weights in closed form, for learners that compute them in their training pass.
  const weightForm: PpoWeightFormV1 = {
    kind: 'ppo',
    ratioLow: lo,
    ratioHigh: hi,
    dualClip: dualC,
    klCoef,
    klEdges: edges,
    releaseAdvantaged,
    scales: (rowOfToken) => aggregationScales(rowOfToken.length, rowOfToken, aggregation),
  };
  return Object.assign(fn, { weightForm });
}
