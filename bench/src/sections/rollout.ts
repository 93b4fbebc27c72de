/**
 * Rollouts with and without the prefix KV cache: laptop-preset Tic-Tac-Toe batches (8 groups × 4 slots,
 * K = 3 attempts with reflections in the transcript, play 16 / reflect 128 tokens) sampled by mage-tiny
 * (random weights, or the warm start named by MAGE_BENCH_MODEL). Each side runs in its own process
 * (`src/rollout/variant.ts`: one warm-up batch, then the measured ones) so its peak RSS is its own.
 * Prefill tokens/s counts every prompt position served (reused ones included) per second of prefill;
 * the note gives the positions actually computed.
 */

import { fileURLToPath } from 'node:url';
import { DEFAULT_PREFIX_CACHE_BYTES } from '@mage-rl/learner';
import { type BenchResult, type BenchSection, runJsonChild } from '../harness';

interface VariantResult {
  readonly times: number[];
  readonly rows: number;
  readonly promptTokens: number;
  readonly reusedTokens: number;
  readonly prefillMs: number;
  readonly decodeTokens: number;
  readonly decodeMs: number;
  readonly compiledSessions: number;
  readonly compileMs: number;
  readonly tokensHash: string;
  readonly maxRssBytes: number;
}

const BATCHES = Number(process.env.MAGE_BENCH_ROLLOUT_BATCHES ?? 2);

/** Runs one side in its own process. */
function runVariant(cacheBytes: number): Promise<VariantResult> {
  return runJsonChild(fileURLToPath(new URL('../rollout/variant.ts', import.meta.url)), [
    String(cacheBytes),
    String(BATCHES),
  ]);
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

function sideResults(label: string, r: VariantResult): BenchResult[] {
  const computed = r.promptTokens - r.reusedTokens;
  return [
    {
      name: `${label}: wall time per batch`,
      value: sum(r.times) / r.times.length,
      unit: 'ms',
      note: `${r.times.map((t) => (t / 1000).toFixed(1)).join(' / ')} s; ${Math.round(r.rows / r.times.length)} rows/batch; ${r.compiledSessions} sessions compiled in ${(r.compileMs / 1000).toFixed(1)} s`,
    },
    {
      name: `${label}: prefill`,
      value: (r.promptTokens * 1000) / r.prefillMs,
      unit: 'tokens/s',
      note: `${r.promptTokens} prompt positions, ${computed} computed (${((100 * r.reusedTokens) / r.promptTokens).toFixed(0)}% reused), ${(r.prefillMs / 1000).toFixed(1)} s`,
    },
    {
      name: `${label}: decode`,
      value: (r.decodeTokens * 1000) / r.decodeMs,
      unit: 'tokens/s',
      note: `${r.decodeTokens} tokens, ${(r.decodeMs / 1000).toFixed(1)} s`,
    },
    { name: `${label}: peak RSS`, value: r.maxRssBytes / 2 ** 20, unit: 'MiB' },
  ];
}

const section: BenchSection = {
  title: 'Laptop-preset rollout, Tic-Tac-Toe K = 3: full prefill every turn vs prefix KV cache',
  async run() {
    const today = await runVariant(0);
    const cached = await runVariant(DEFAULT_PREFIX_CACHE_BYTES);
    const same = today.tokensHash === cached.tokensHash;
    return [
      ...sideResults('full prefill', today),
      ...sideResults('prefix cache', cached),
      {
        name: 'wall time, cache / full',
        value: sum(cached.times) / sum(today.times),
        unit: '×',
        target: { value: 0.5, comparison: '<=' },
        note: `same sampled tokens: ${same ? 'yes' : 'NO'}; peak RSS ${mib(today.maxRssBytes)} → ${mib(cached.maxRssBytes)}`,
      },
      {
        name: 'prefill time, cache / full',
        value: cached.prefillMs / today.prefillMs,
        unit: '×',
      },
    ];
  },
};
export default section;
