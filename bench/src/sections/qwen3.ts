/**
 * A Qwen3-0.6B-shaped model with random weights (28 layers, d_model 1024, vocabulary 151,936; written
 * once by `src/qwen3/write.ts` into a cache directory): LoRA update tokens/s, greedy decode tokens/s at
 * batch 1 and 16 and peak RSS of our learner, side by side with PyTorch eager on the same weights and
 * tokens (`bench/pytorch/qwen3_bench.py`, skipped with a message when no Python has torch) and with
 * transformers.js for decode (on the learner's ONNX export). Every measurement runs in its own process
 * so that its peak RSS is its own. The first log-probs of the update rows, ours against PyTorch's, check
 * that both sides compute the same function.
 */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type BenchResult,
  type BenchSection,
  findTorchPython,
  runJsonChild,
  runJsonCommand,
} from '../harness';
import {
  COMPLETE_FILE,
  DECODE_NEW,
  DECODE_PROMPT,
  LAYERS,
  modelDir,
  PROMPT,
  RESPONSE,
  ROWS,
} from '../qwen3/model';

const UPDATES = Number(process.env.MAGE_BENCH_QWEN3_UPDATES ?? 2);
const ROUNDS = Number(process.env.MAGE_BENCH_QWEN3_ROUNDS ?? 2);
const script = (name: string) => fileURLToPath(new URL(`../qwen3/${name}`, import.meta.url));
const TORCH_SCRIPT = fileURLToPath(new URL('../../pytorch/qwen3_bench.py', import.meta.url));

interface UpdateRun {
  readonly tokens: number;
  readonly positions: number;
  readonly times: number[];
  readonly cpuMs: number[];
  readonly losses: number[];
  readonly logprobs: number[][];
  readonly scoreMs: number;
  readonly maxRssBytes: number;
}

interface DecodeBatch {
  readonly times: number[];
  readonly tokens: number[];
  readonly newTokens: number;
}

interface DecodeRun {
  readonly batch1: DecodeBatch;
  readonly batch16: DecodeBatch;
  readonly maxRssBytes: number;
}

const fmt = (ms: readonly number[]) => ms.map((x) => (x / 1000).toFixed(1)).join(' / ');
const best = (ms: readonly number[]) => Math.min(...ms);
const mib = (bytes: number) => bytes / 2 ** 20;

function updateRate(label: string, r: UpdateRun): BenchResult {
  return {
    name: `LoRA update (${label})`,
    value: (r.tokens * 1000) / best(r.times),
    unit: 'tokens/s',
    note: `best of ${r.times.length}; ${r.tokens} trained tokens (${r.positions} positions) per update; ${fmt(r.times)} s; CPU ${fmt(r.cpuMs)} s`,
  };
}

function decodeRate(label: string, d: DecodeBatch, batch: number): BenchResult {
  return {
    name: `decode batch ${batch} (${label})`,
    value: (d.newTokens * 1000) / best(d.times),
    unit: 'tokens/s',
    note: `best of ${d.times.length}: ${fmt(d.times)} s per call`,
  };
}

/** How many leading tokens two greedy continuations share. */
const samePrefix = (a: readonly number[], b: readonly number[]) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/** Largest |Δ| between two sides' log-probs, and the relative difference of their means. */
function logprobAgreement(a: number[][], b: number[][]): { maxAbs: number; meanRel: number; spread: number } {
  const x = a.flat();
  const y = b.flat();
  let maxAbs = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < x.length; i++) {
    maxAbs = Math.max(maxAbs, Math.abs((x[i] as number) - (y[i] as number)));
    sx += x[i] as number;
    sy += y[i] as number;
  }
  const mean = sx / x.length;
  const spread = Math.sqrt(x.reduce((s, v) => s + (v - mean) ** 2, 0) / x.length);
  return { maxAbs, meanRel: Math.abs(sx - sy) / Math.abs(sx), spread };
}

/**
 * Awaits one side; logs its numbers (without the log-probs) to stderr at once, so that a long run
 * keeps them even if a later side fails, and turns a failed side (e.g. killed for memory) into a
 * message and `undefined`.
 */
async function side<T extends object>(label: string, run: Promise<T>): Promise<T | undefined> {
  try {
    const r = await run;
    const { logprobs: _, ...summary } = r as T & { logprobs?: unknown };
    process.stderr.write(`qwen3 bench, ${label}: ${JSON.stringify(summary)}\n`);
    return r;
  } catch (e) {
    process.stderr.write(`qwen3 bench, ${label} failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return undefined;
  }
}

const section: BenchSection = {
  title: `Qwen3-0.6B shape (${LAYERS} layers, d 1024, vocabulary 151,936, random weights): ours vs PyTorch eager vs transformers.js`,
  async run() {
    const dir = modelDir();
    if (!existsSync(`${dir}/${COMPLETE_FILE}`)) {
      process.stdout.write(`writing the model to ${dir} (once) …\n`);
      await runJsonChild(script('write.ts'), [dir]);
    }
    const python = findTorchPython();
    const results: BenchResult[] = [];
    const shape = `${ROWS} rows × ${PROMPT} prompt + ${RESPONSE} response tokens in micro-batches of 8 rows, LoRA rank 8 (alpha 16) on q/k/v/o, AdamW`;

    const ours = await side(
      'ours, update',
      runJsonChild<UpdateRun>(script('ours.ts'), [dir, 'update', String(UPDATES)]),
    );
    if (ours === undefined) throw new Error('our update failed (see above)');
    results.push(updateRate('ours', ours));
    const torchUpdate = python
      ? await side(
          'PyTorch, update',
          runJsonCommand<UpdateRun>(python, [TORCH_SCRIPT, dir, 'update', String(UPDATES)]),
        )
      : undefined;
    if (torchUpdate) {
      const agree = logprobAgreement(ours.logprobs, torchUpdate.logprobs);
      results.push(
        updateRate('PyTorch eager', torchUpdate),
        {
          name: 'LoRA update: ours / PyTorch',
          value: best(torchUpdate.times) / best(ours.times),
          unit: '×',
          target: { value: 1.5, comparison: '>=' },
          note: shape,
        },
        {
          name: 'first log-probs: max |ours − PyTorch| / spread',
          value: agree.maxAbs / agree.spread,
          unit: 'ratio',
          target: { value: 1e-3, comparison: '<=' },
          note: `${ours.logprobs.flat().length} response tokens; max |Δ| ${agree.maxAbs.toExponential(2)} nats; their spread (std) ${agree.spread.toFixed(3)} nats; mean differs by ${agree.meanRel.toExponential(1)} relative; first update's loss ${ours.losses[0]?.toFixed(5)} vs ${torchUpdate.losses[0]?.toFixed(5)}`,
        },
      );
    }
    results.push({ name: 'LoRA update peak RSS (ours)', value: mib(ours.maxRssBytes), unit: 'MiB' });
    if (torchUpdate) {
      results.push(
        { name: 'LoRA update peak RSS (PyTorch)', value: mib(torchUpdate.maxRssBytes), unit: 'MiB' },
        {
          name: 'LoRA update peak RSS: ours / PyTorch',
          value: ours.maxRssBytes / torchUpdate.maxRssBytes,
          unit: '×',
          target: { value: 1.2, comparison: '<=' },
        },
      );
    }

    const ourDecode = await side(
      'ours, decode',
      runJsonChild<DecodeRun>(script('ours.ts'), [dir, 'decode', String(ROUNDS)]),
    );
    if (ourDecode === undefined) throw new Error('our decode failed (see above)');
    const tjs = await side(
      'transformers.js, decode',
      runJsonChild<DecodeRun & { loadMs: number; threads: number }>(script('transformers-js.ts'), [
        dir,
        String(ROUNDS),
      ]),
    );
    if (tjs === undefined) throw new Error('transformers.js decode failed (see above)');
    const torchDecode = python
      ? await side(
          'PyTorch, decode',
          runJsonCommand<DecodeRun>(python, [TORCH_SCRIPT, dir, 'decode', String(ROUNDS)]),
        )
      : undefined;
    for (const batch of [1, 16] as const) {
      const key = `batch${batch}` as const;
      results.push(decodeRate('ours', ourDecode[key], batch), decodeRate('transformers.js', tjs[key], batch));
      if (torchDecode) results.push(decodeRate('PyTorch eager', torchDecode[key], batch));
      results.push({
        name: `decode batch ${batch}: ours / transformers.js`,
        value: best(tjs[key].times) / best(ourDecode[key].times),
        unit: '×',
        target: { value: 1, comparison: '>=' },
        note: `prompt ${DECODE_PROMPT}, ${DECODE_NEW} new tokens, greedy; first row's tokens equal for ${samePrefix(ourDecode[key].tokens, tjs[key].tokens)} of ${DECODE_NEW}`,
      });
      if (torchDecode)
        results.push({
          name: `decode batch ${batch}: ours / PyTorch`,
          value: best(torchDecode[key].times) / best(ourDecode[key].times),
          unit: '×',
          note: `first row's tokens equal for ${samePrefix(ourDecode[key].tokens, torchDecode[key].tokens)} of ${DECODE_NEW}`,
        });
    }
    results.push(
      { name: 'decode peak RSS (ours)', value: mib(ourDecode.maxRssBytes), unit: 'MiB' },
      {
        name: 'decode peak RSS (transformers.js)',
        value: mib(tjs.maxRssBytes),
        unit: 'MiB',
        note: `load ${(tjs.loadMs / 1000).toFixed(1)} s, ${tjs.threads} threads`,
      },
    );
    if (torchDecode)
      results.push({ name: 'decode peak RSS (PyTorch)', value: mib(torchDecode.maxRssBytes), unit: 'MiB' });
    if (!python)
      process.stdout.write(
        'PyTorch side skipped: no python3 with torch (install it with scripts/install-bench-deps.sh, i.e. apt-get install python3-torch libopenblas0-openmp).\n',
      );
    return results;
  },
};
export default section;
