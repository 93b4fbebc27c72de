/**
 * Writes the `checkpoint-load` bench's model (see `model.ts`) unless it is already there: weights of
 * random float32 bits (xorshift, exponents kept in [2^-9, 2^-6): values like a trained model's, no NaN),
 * exported by `exportHfModel` in float32 shards of at most `SHARD_BYTES`. Usage: `tsx write.ts [dir]`;
 * prints `{ dir, files, bytes, writeMs }`.
 */

import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportHfModel, paramSpecs } from '@mage-rl/learner';
import { qwen3Config } from '../qwen3/model';
import { EXPECTED_FILE, loadDir, SHARD_BYTES, sha256 } from './model';

const dir = process.argv[2] ?? loadDir();
if (existsSync(join(dir, EXPECTED_FILE))) {
  process.stdout.write(`${JSON.stringify({ dir, cached: true })}\n`);
} else {
  const config = qwen3Config({ eos: 0, bos: 1 });
  const weights = new Map<string, Float32Array>();
  let state = 0x9e3779b9;
  let bytes = 0;
  for (const s of paramSpecs(config)) {
    const w = new Float32Array(s.shape.reduce((p, d) => p * d, 1));
    const bits = new Uint32Array(w.buffer);
    for (let i = 0; i < bits.length; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      // Sign and mantissa random; biased exponent 118–121.
      bits[i] = (state & 0x807fffff) | ((118 + (i & 3)) << 23);
    }
    weights.set(s.name, w);
    bytes += w.byteLength;
  }
  const started = performance.now();
  const { files } = await exportHfModel({
    dir,
    config,
    weights,
    files: { onnx: false },
    safetensors: { maxShardBytes: SHARD_BYTES },
  });
  const writeMs = performance.now() - started;
  const expected = Object.fromEntries([...weights].map(([name, w]) => [name, sha256(w)]));
  await writeFile(join(dir, EXPECTED_FILE), JSON.stringify(expected));
  process.stdout.write(`${JSON.stringify({ dir, files, bytes, writeMs })}\n`);
}
