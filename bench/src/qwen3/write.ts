/**
 * Writes the `qwen3` bench's model directory (`tsx write.ts <dir>`), in its own process so that the
 * bench's other processes never hold its weights: config, tokenizer, sharded safetensors, the ONNX
 * export transformers.js loads, and `inputs.json`.
 */

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { QWEN3_VOCAB } from '../vocab/model';
import { writeRandomModel } from '../vocab/random-model';
import { benchInputs, COMPLETE_FILE, qwen3Config } from './model';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: write.ts <dir>');
const t0 = performance.now();
const config = await writeRandomModel({ dir, vocabSize: QWEN3_VOCAB, configOf: qwen3Config, onnx: true });
await writeFile(join(dir, 'inputs.json'), JSON.stringify(benchInputs(QWEN3_VOCAB)));
await writeFile(join(dir, COMPLETE_FILE), JSON.stringify({ config, writtenAt: new Date().toISOString() }));
process.stdout.write(`${JSON.stringify({ dir, ms: performance.now() - t0 })}\n`);
