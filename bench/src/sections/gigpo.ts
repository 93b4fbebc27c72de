import { createRng } from '@mage-rl/core';
import {
  type AdvantageRowInput,
  computeAdvantageColumns,
  computeAdvantages,
  ppoTokenLoss,
} from '@mage-rl/gigpo';
import { type BenchSection, measureRate } from '../harness';

/**
 * 100,000 rows shaped like a MAGE iteration: groups of 8 slots, 3 attempts of 1–8 play turns with a
 * reflect row before attempts 1 and 2, Tic-Tac-Toe-like anchors (a few hundred states per group).
 */
function syntheticRows(target: number): AdvantageRowInput[] {
  const rng = createRng(42);
  const rows: AdvantageRowInput[] = [];
  for (let g = 0; rows.length < target; g++) {
    const opponent = `opp-${g % 5}`;
    for (let s = 0; s < 8; s++) {
      const slot = `g${g}/s${s}`;
      for (let k = 0; k < 3; k++) {
        if (k > 0) {
          rows.push({
            group: `g${g}`,
            slot,
            attempt: k,
            phase: 'reflect',
            anchor: `reflection|${opponent}`,
            reward: 0,
            valid: true,
            responseTokens: 40,
          });
        }
        const turns = 1 + rng.int(8);
        const outcome = [-10, 0, 10][rng.int(3)] as number;
        for (let t = 0; t < turns; t++) {
          rows.push({
            group: `g${g}`,
            slot,
            attempt: k,
            phase: 'play',
            anchor: `state-${t}-${rng.int(6)}|${opponent}`,
            reward: t === turns - 1 ? outcome : 0,
            valid: rng.next() > 0.05,
            responseTokens: 8 + rng.int(40),
          });
        }
      }
    }
  }
  rows.length = target;
  return rows;
}

const section: BenchSection = {
  title: 'GiGPO advantages and PPO token loss',
  async run() {
    const n = 100_000;
    const rows = syntheticRows(n);
    const objects = measureRate(() => computeAdvantages(rows).length);
    const columns = measureRate(() => computeAdvantageColumns(rows).advantages.length);
    const meanStdLocal = measureRate(
      () => computeAdvantages(rows, { normalization: 'mean-std', anchorScope: 'local' }).length,
    );
    const grpo = measureRate(() => computeAdvantages(rows, { estimator: 'grpo' }).length);
    // Cold strings: rows fresh from JSON.parse (as when re-scoring a recorded iteration) have no cached
    // string hashes yet. Parsing is excluded from the time.
    const json = JSON.stringify(rows);
    let coldSeconds = 0;
    const coldRuns = 6;
    for (let r = 0; r < coldRuns; r++) {
      const parsed = JSON.parse(json) as AdvantageRowInput[];
      const t0 = performance.now();
      computeAdvantages(parsed);
      coldSeconds += (performance.now() - t0) / 1000;
    }
    const cold = (coldRuns * n) / coldSeconds;

    const tokens = 100_000;
    const rng = createRng(7);
    const logprobs = new Float32Array(tokens);
    const oldLogprobs = new Float32Array(tokens);
    const refLogprobs = new Float32Array(tokens);
    const advantages = new Float32Array(tokens);
    const rowOfToken = new Int32Array(tokens);
    for (let j = 0; j < tokens; j++) {
      oldLogprobs[j] = -3 * rng.next();
      logprobs[j] = (oldLogprobs[j] as number) + 0.4 * (rng.next() - 0.5);
      refLogprobs[j] = (logprobs[j] as number) + 0.2 * (rng.next() - 0.5);
      advantages[j] = 2 * rng.next() - 1;
      rowOfToken[j] = j >> 5;
    }
    const loss = ppoTokenLoss({ klCoef: 0.1 });
    const ppo = measureRate(
      () => loss({ logprobs, oldLogprobs, refLogprobs, advantages, rowOfToken }).weights.length,
    );
    const target = { value: 1_000_000, comparison: '>=' } as const;
    return [
      { name: 'computeAdvantages (100k rows, defaults)', value: objects, unit: 'rows/s', target },
      { name: 'computeAdvantageColumns (100k rows, defaults)', value: columns, unit: 'rows/s', target },
      { name: 'computeAdvantages (mean-std, local anchors)', value: meanStdLocal, unit: 'rows/s', target },
      { name: 'computeAdvantages (grpo)', value: grpo, unit: 'rows/s', target },
      {
        name: 'computeAdvantages (rows fresh from JSON.parse)',
        value: cold,
        unit: 'rows/s',
        target,
        note: `mean of ${coldRuns} single calls`,
      },
      { name: 'ppoTokenLoss (100k tokens, KL on)', value: ppo, unit: 'tokens/s' },
    ];
  },
};
export default section;
