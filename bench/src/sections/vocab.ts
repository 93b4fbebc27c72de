/**
 * Updates at vocabulary 151,936 (a random Qwen3-shaped model, d_model 64, 2 layers, bf16-rounded
 * weights): today's dense head (log-probs at every position, row chunks) against the large-vocabulary
 * graphs (head only at the scored tokens, vocabulary chunks). Each side runs in its own process
 * (`src/vocab/variant.ts`: one warm-up update, then the measured ones) so its peak RSS is its own.
 * Tokens/s counts trained (response) tokens per second of `update`: without a scoring pass (on-policy
 * rows the learner sampled, supervised losses) and with one (rows it must score first).
 */

import { fileURLToPath } from 'node:url';
import { type BenchResult, type BenchSection, runJsonChild } from '../harness';

interface Timed {
  readonly times: number[];
  /** Process CPU time per update (all threads). */
  readonly cpuMs: number[];
  readonly runMs: Record<string, number>;
}

interface VariantResult {
  readonly scored: Timed;
  readonly fresh: Timed;
  readonly tokens: number;
  readonly positions: number;
  readonly logprob0: number;
  readonly maxRssBytes: number;
}

const UPDATES = Number(process.env.MAGE_BENCH_VOCAB_UPDATES ?? 2);

/** Runs one side in its own process. */
function runVariant(mode: 'full' | 'chunked'): Promise<VariantResult> {
  return runJsonChild(fileURLToPath(new URL('../vocab/variant.ts', import.meta.url)), [
    mode,
    String(UPDATES),
  ]);
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function rate(label: string, r: VariantResult, t: Timed, what: string): BenchResult[] {
  const ms = sum(t.times);
  const graphMs = sum(Object.values(t.runMs));
  const split = Object.entries(t.runMs)
    .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
    .join(', ');
  return [
    {
      name: `${label}: update, ${what}`,
      value: (r.tokens * t.times.length * 1000) / ms,
      unit: 'tokens/s',
      target: { value: 1000, comparison: '>=' },
      note: `${r.tokens} trained tokens (${r.positions} positions) per update; ${t.times.map((x) => (x / 1000).toFixed(1)).join(' / ')} s; graph runs ${split}, the rest ${((ms - graphMs) / 1000).toFixed(1)} s`,
    },
    {
      name: `${label}: update, ${what}, per CPU second`,
      value: (r.tokens * t.cpuMs.length * 1000) / sum(t.cpuMs),
      unit: 'tokens/s',
      note: `CPU ${t.cpuMs.map((x) => (x / 1000).toFixed(1)).join(' / ')} s per update (all threads; 2 cores at most double it)`,
    },
  ];
}

function sideResults(label: string, r: VariantResult): BenchResult[] {
  return [
    ...rate(label, r, r.fresh, 'no scoring pass'),
    ...rate(label, r, r.scored, 'scoring pass first'),
    {
      name: `${label}: peak RSS`,
      value: r.maxRssBytes / 2 ** 20,
      unit: 'MiB',
      target: { value: 2048, comparison: '<=' },
    },
  ];
}

const section: BenchSection = {
  title: 'Updates at vocabulary 151,936 (Qwen3-shaped, d64, 2 layers): dense head vs large-vocabulary graphs',
  async run() {
    const today = await runVariant('full');
    const chunked = await runVariant('chunked');
    return [
      ...sideResults('dense head', today),
      ...sideResults('scored tokens, vocabulary chunks', chunked),
      {
        name: 'update CPU time, chunked / dense (no scoring pass)',
        value: sum(chunked.fresh.cpuMs) / sum(today.fresh.cpuMs),
        unit: '×',
        note: `log-prob after the updates ${today.logprob0.toFixed(5)} vs ${chunked.logprob0.toFixed(5)}`,
      },
    ];
  },
};
export default section;
