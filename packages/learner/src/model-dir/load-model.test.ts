import { join } from 'node:path';
import { MageError } from '@mage-rl/core';
import { useTempDir } from '@mage-rl/core/testing/vitest';
import { describe, expect, it } from 'vitest';
import { exportHfModel } from '../hf';
import { wordLevelTokenizerFiles } from '../tokenizer';
import { loadModel, modelKindOf } from './load-model';
import { createMageTiny, saveMageTiny, wordLevelTokenizerOf } from './mage-tiny-dir';

describe('loadModel: mage-tiny and Hugging Face directories', () => {
  const tmp = useTempDir('mage-model-');

  it('loads the same weights from a mage-tiny directory and from its Hugging Face export', async () => {
    const tokenizer = wordLevelTokenizerOf(['board 1 2 3 <action>(1, 2)</action>']);
    const original = await createMageTiny(tokenizer, { seed: 3, runner: 'local' });
    const tinyDir = join(tmp.path, 'tiny');
    const hfDir = join(tmp.path, 'hf');
    await saveMageTiny(tinyDir, original, tokenizer, { note: 'test' });
    await exportHfModel({
      dir: hfDir,
      config: original.config,
      weights: original.weights,
      tokenizerFiles: wordLevelTokenizerFiles(tokenizer),
    });
    expect(await modelKindOf(tinyDir)).toBe('mage-tiny');
    expect(await modelKindOf(hfDir)).toBe('hugging-face');

    const row = {
      promptTokens: tokenizer.encodeChat([{ role: 'user', content: 'board 1 2 3' }]),
      responseTokens: tokenizer.encode('<action>(1, 2)</action>'),
    };
    const [expected] = await original.logprobs([row]);
    for (const d of [tinyDir, hfDir]) {
      const learner = await loadModel(d, { runner: 'local' });
      const [got] = await learner.logprobs([row]);
      expect(Array.from(got as Float32Array)).toEqual(
        Array.from(expected as Float32Array).map((x) => expect.closeTo(x, 5)),
      );
      await learner.dispose();
    }
    const withLora = await loadModel(hfDir, { runner: 'local', lora: true });
    expect(withLora.adapters.size).toBeGreaterThan(0);
    await withLora.dispose();
    await original.dispose();
  });

  it('explains what a model directory must hold', async () => {
    const err = await modelKindOf(tmp.path).catch((e: unknown) => e);
    expect(MageError.isInstance(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(
      /neither a mage-tiny directory .* nor a Hugging Face checkpoint/,
    );
  });
});
