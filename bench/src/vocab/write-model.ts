/**
 * Writes the `vocab` bench's model as a Hugging Face directory for `mage train --preset smoke --model
 * <dir>`: `tsx write-model.ts <dir>`. No Qwen3 tokenizer is available offline, so the tokenizer is
 * mage-tiny's word-level one (the compact grammar's words) grown with filler words to 151,936 ids: the
 * sampler, the update and the checkpoints see a real vocabulary's size, the prompts mage-tiny's words.
 */

import { createRng } from '@mage-rl/core';
import { exportHfModel, initParams, wordLevelTokenizerFiles } from '@mage-rl/learner';
import { buildMageTinyTokenizer } from '@mage-rl/trainer';
import { benchModelConfig, QWEN3_VOCAB, toBf16 } from './model';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: write-model.ts <dir>');
const base = buildMageTinyTokenizer([]).vocabSize;
const filler = Array.from({ length: QWEN3_VOCAB - base }, (_, i) => `zz${i}`).join(' ');
const tokenizer = buildMageTinyTokenizer([filler]);
if (tokenizer.vocabSize !== QWEN3_VOCAB) throw new Error(`tokenizer has ${tokenizer.vocabSize} ids`);
const config = benchModelConfig(QWEN3_VOCAB, {
  eos: tokenizer.eosTokenIds[0] as number,
  bos: tokenizer.encode('<bos>')[0] as number,
});
const weights = initParams(config, createRng(1));
for (const w of weights.values()) toBf16(w);
await exportHfModel({
  dir,
  config,
  weights,
  tokenizerFiles: wordLevelTokenizerFiles(tokenizer),
  files: { onnx: false },
});
process.stdout.write(`wrote ${dir}: ${QWEN3_VOCAB} ids\n`);
