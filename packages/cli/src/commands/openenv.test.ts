import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  capture,
  commandLine,
  runCaptured,
  runJson,
  saveTinyModel,
  useTempDir,
} from '../testing/cli.test-helper';
import { useNumberGame } from '../testing/number-game.test-helper';
import { serveEnv } from './env-serve';

/**
 * An OpenAI-compatible policy server that plays the number game by binary search: it guesses the middle
 * of the narrowest "between L and H" the conversation states (the secret is the same in every attempt).
 */
function binarySearchPolicy(): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      requests++;
      const { messages } = JSON.parse(body) as { messages: { content: string }[] };
      let [low, high] = [1, 100];
      for (const m of messages
        .map((x) => x.content)
        .join('\n')
        .matchAll(/between (\d+) and (\d+)/g)) {
        low = Math.max(low, Number(m[1]));
        high = Math.min(high, Number(m[2]));
      }
      const content = `<action>${Math.floor((low + high) / 2)}</action>`;
      const answer = {
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        requests: () => requests,
      }),
    ),
  );
}

describe('mage eval --env openenv against an OpenEnv server mage-rl did not write the env of', () => {
  const game = useNumberGame();
  const misfit = useNumberGame(['--action-field', 'guess']);
  let policy: Awaited<ReturnType<typeof binarySearchPolicy>>;
  beforeAll(async () => {
    policy = await binarySearchPolicy();
  });
  afterAll(async () => {
    await new Promise((r) => policy.server.close(r));
  });

  it('evaluates a served policy end to end: every meta-episode guesses the number', async () => {
    type Rate = { successes: number; trials: number };
    type Metrics = {
      overall: {
        metaEpisodes: number;
        perAttempt: { attempt: number; played: number; success: Rate }[];
        invalidActionRate: Rate;
        playTurns: number;
      };
    };
    const r = await runJson<{ env: string; metrics: Metrics }>([
      ...commandLine(
        'eval --env openenv --method react --episodes 3 --attempts 2 --preset smoke --model fake',
      ),
      '--env-url',
      game.url,
      '--policy',
      policy.url,
      '--no-memory-baseline',
    ]);
    expect(r.env).toBe('openenv');
    const { overall } = r.metrics;
    expect(overall.metaEpisodes).toBe(3);
    // Binary search over 1–100 wins the first attempt within 7 guesses, so no second attempt is played.
    expect(overall.perAttempt.map((a) => [a.played, a.success.successes])).toEqual([
      [3, 3],
      [0, 0],
    ]);
    expect(overall.invalidActionRate.successes).toBe(0);
    expect(overall.playTurns).toBeGreaterThanOrEqual(3);
    expect(overall.playTurns).toBeLessThanOrEqual(21);
    expect(policy.requests()).toBe(overall.playTurns);
  });

  it('names the field and the option when the server does not fit', async () => {
    const r = await runCaptured([
      ...commandLine(
        'eval --env openenv --method react --episodes 1 --attempts 1 --preset smoke --model fake',
      ),
      '--env-url',
      misfit.url,
      '--policy',
      policy.url,
      '--no-memory-baseline',
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/none of them 'message'.*--set env\.options\.actionField=<field>/);
  });
});

describe('mage train --env openenv from a model of its own (slow: one smoke iteration)', () => {
  const tmp = useTempDir('mage-openenv-');
  const game = useNumberGame();

  it('rolls out on the OpenEnv server, updates and evaluates', async () => {
    const model = await saveTinyModel(join(tmp.path, 'model'), 1);
    const runDir = join(tmp.path, 'run');
    await runJson([
      ...commandLine('train --env openenv --preset smoke --iterations 1 --model'),
      model,
      '--env-url',
      game.url,
      '--run-dir',
      runDir,
    ]);
    const lines = (await readFile(join(runDir, 'metrics.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.map((l) => l.type)).toEqual(['rollout', 'update', 'eval']);
  }, 600_000);
});

describe('mage env-serve --protocol openenv', () => {
  it('serves OpenEnv routes (sessions on /ws: env-remote tests them); refuses an unknown protocol', async () => {
    const stop = new AbortController();
    const c = capture();
    const flags = {
      port: '0',
      host: '127.0.0.1',
      seat: 'first',
      style: 'verbose',
      maxInstances: '4',
      maxBodyBytes: '65536',
      maxConcurrent: '8',
      opponent: 'random',
      json: true,
    };
    await expect(serveEnv('tictactoe', { ...flags, protocol: 'grpc' }, c.io, stop.signal)).rejects.toThrow(
      /--protocol must be one of webshop, openenv/,
    );
    await expect(serveEnv('openenv', { ...flags, protocol: 'openenv' }, c.io, stop.signal)).rejects.toThrow(
      /already runs on a server of its own/,
    );
    const serving = serveEnv('tictactoe', { ...flags, protocol: 'openenv' }, c.io, stop.signal);
    await expect.poll(() => c.out(), { timeout: 10_000 }).toContain('"url"');
    const { url, protocol } = JSON.parse(c.out()) as { url: string; protocol: string };
    expect(protocol).toBe('openenv');
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });
    expect(await (await fetch(`${url}/metadata`)).json()).toMatchObject({ name: 'tictactoe' });
    const reset = await fetch(`${url}/reset`, {
      method: 'POST',
      body: JSON.stringify({ seed: 1 }),
      headers: { 'content-type': 'application/json' },
    });
    const answer = (await reset.json()) as { done: boolean; observation: { prompt: string } };
    expect(answer.done).toBe(false);
    expect(answer.observation.prompt).toContain('Tic-Tac-Toe');
    stop.abort();
    await serving;
  });
});
