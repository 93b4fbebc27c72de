import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runtimeVersions } from './session';

describe('runtimeVersions', () => {
  it('names the onnxruntime-node version the learner depends on', async () => {
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(runtimeVersions()).toEqual({ 'onnxruntime-node': manifest.dependencies['onnxruntime-node'] });
  });
});
