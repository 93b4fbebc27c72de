/**
 * transformers.js' side of the `qwen3` bench, in its own process: `tsx transformers-js.ts <dir>
 * <rounds>` loads `onnx/model.onnx` (weights in `model.onnx_data`) with `AutoModelForCausalLM` and
 * times greedy `generate` at batch 1 and 16 on the same prompts as ours, with as many onnxruntime
 * threads as ours. Prints one JSON line.
 */

import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { importTransformers } from '../transformers-js';
import type { BenchInputs } from './model';

const [dir, roundsArg] = process.argv.slice(2) as [string, string | undefined];
const rounds = Number(roundsArg ?? 2);
const inputs = JSON.parse(await readFile(join(dir, 'inputs.json'), 'utf8')) as BenchInputs;
const tjs = await importTransformers();
tjs.env.allowRemoteModels = false;
const t0 = performance.now();
const threads = availableParallelism();
const model = await tjs.AutoModelForCausalLM.from_pretrained(dir, {
  local_files_only: true,
  dtype: 'fp32',
  device: 'cpu',
  use_external_data_format: 1,
  session_options: { intraOpNumThreads: threads },
});
const loadMs = performance.now() - t0;
const out: Record<string, unknown> = { loadMs, threads };
for (const batch of [1, 16]) {
  const prompts = inputs.decode.prompts.slice(0, batch);
  const len = inputs.decode.promptLen;
  const ids = new tjs.Tensor('int64', BigInt64Array.from(prompts.flat(), BigInt), [batch, len]);
  const mask = new tjs.Tensor('int64', new BigInt64Array(batch * len).fill(1n), [batch, len]);
  const times: number[] = [];
  let tokens: number[] = [];
  for (let i = 0; i <= rounds; i++) {
    const t = performance.now();
    const result = (await model.generate({
      input_ids: ids,
      attention_mask: mask,
      max_new_tokens: inputs.decode.newTokens,
      min_new_tokens: inputs.decode.newTokens,
      do_sample: false,
    })) as { tolist(): bigint[][] };
    if (i > 0) times.push(performance.now() - t);
    tokens = (result.tolist()[0] ?? []).slice(len).map(Number);
  }
  out[`batch${batch}`] = { times, tokens, newTokens: batch * inputs.decode.newTokens };
}
await model.dispose();
process.stdout.write(`${JSON.stringify({ ...out, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`);
