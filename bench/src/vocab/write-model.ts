/**
 * Writes the `vocab` bench's model as a Hugging Face directory for `mage train --preset smoke --model
 * <dir>`: `tsx write-model.ts <dir>`. No Qwen3 tokenizer is available offline, so the tokenizer is
 * mage-tiny's word-level one (the compact grammar's words) grown with filler words to 151,936 ids: the
 * sampler, the update and the checkpoints see a real vocabulary's size, the prompts mage-tiny's words.
 */

import { benchModelConfig, QWEN3_VOCAB } from './model';
import { writeRandomModel } from './random-model';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: write-model.ts <dir>');
await writeRandomModel({
  dir,
  vocabSize: QWEN3_VOCAB,
  configOf: (ids) => benchModelConfig(QWEN3_VOCAB, ids),
});
process.stdout.write(`wrote ${dir}: ${QWEN3_VOCAB} ids\n`);
