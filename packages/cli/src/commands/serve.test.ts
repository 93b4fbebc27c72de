import { join } from 'node:path';
import type { PolicyRequestV1 } from '@mage-rl/core';
import { loadModel } from '@mage-rl/learner';
import { createRemotePolicy } from '@mage-rl/serve';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture, runJson, saveTinyModel, useTempDir, waitFor } from '../testing/cli.test-helper';

describe('mage serve + remote policies', () => {
  const tmp = useTempDir('mage-serve-cli-');

  it('serves a model directory; a remote policy and `mage eval --policy <url>` match in-process evaluation', async () => {
    const dir = await saveTinyModel(join(tmp.path, 'tiny'), 11);

    const c = capture();
    const done = runCli(['serve', dir, '--port', '0', '--served-model-name', 'tiny', '--api-key', 'k'], c.io);
    const [, url] = await waitFor(c.out, /at (http:\/\/\S+\/v1)/);
    const client = new OpenAI({ baseURL: url as string, apiKey: 'k', maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['tiny']);
    expect(c.out()).toContain("as model 'tiny'");

    // Library API: the same requests through the server and in-process give the same responses.
    const learner = await loadModel(dir, { runner: 'local' });
    const remote = createRemotePolicy({ baseURL: url as string, model: 'tiny', apiKey: 'k' });
    const requests: PolicyRequestV1[] = ['board', 'you play x', 'opponent o', 'legal moves'].map(
      (content, i) => ({
        messages: [{ role: 'user', content }],
        phase: 'play',
        seed: 1000 + i,
        maxTokens: 12,
      }),
    );
    for (const sampling of [{ temperature: 0 }, { temperature: 1, topP: 0.9, topK: 20 }]) {
      const ours = await learner.policy.generate(requests, sampling);
      const theirs = await remote.generate(requests, sampling);
      expect(theirs.map((r) => [r.text, r.tokens, r.promptTokens, r.finishReason])).toEqual(
        ours.map((r) => [r.text, r.tokens, r.promptTokens, r.finishReason]),
      );
      theirs.forEach((r, i) => {
        expect(r.logprobs).toEqual(ours[i]?.logprobs.map((x) => expect.closeTo(x, 4)));
      });
    }
    await learner.dispose();

    // The CLI: `mage eval` of the directory and of the served model agree.
    const common = [
      'eval',
      '--env',
      'tictactoe',
      '--preset',
      'smoke',
      '--episodes',
      '2',
      '--attempts',
      '2',
      '--opponents',
      'pattern-corners-first',
    ];
    const local = await runJson<{ metrics: unknown }>([...common, '--policy', dir]);
    const served = await runJson<{ metrics: unknown }>([
      ...common,
      '--policy',
      url as string,
      '--model',
      'tiny',
      '--api-key',
      'k',
    ]);
    expect(served.metrics).toEqual(local.metrics);

    process.emit('SIGTERM');
    expect(await done).toBe(0);
    expect(c.out()).toContain('Stopped by SIGTERM');
  }, 120_000);

  it('--json prints the address and the model name clients pass (default: the directory name)', async () => {
    const dir = await saveTinyModel(join(tmp.path, 'my-run'), 5);
    const c = capture();
    const done = runCli(['serve', dir, '--port', '0', '--json'], c.io);
    await waitFor(c.out, /\}\n$/);
    const printed = JSON.parse(c.out()) as { url: string; port: number; model: string; dir: string };
    expect(printed).toMatchObject({ model: 'my-run', dir });
    const client = new OpenAI({ baseURL: printed.url, apiKey: 'none', maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toEqual([printed.model]);
    process.emit('SIGTERM');
    expect(await done).toBe(0);
    expect(c.out()).not.toContain('Stopped');
  }, 60_000);

  it('reads the API key from the variable --api-key-env names, refusing an unset one before loading anything', async () => {
    const c = capture();
    expect(await runCli(['serve', '/no/such/model', '--api-key-env', 'MAGE_TEST_UNSET_KEY'], c.io)).toBe(1);
    expect(c.err()).toMatch(/--api-key-env MAGE_TEST_UNSET_KEY: the variable is unset/);
  });

  it('refuses a server URL without --model', async () => {
    const c = capture();
    const code = await runCli(['eval', '--env', 'tictactoe', '--policy', 'http://127.0.0.1:1/v1'], c.io);
    expect(code).toBe(1);
    expect(c.err()).toMatch(/--model/);
  });
});
