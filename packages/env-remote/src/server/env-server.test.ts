import { request } from 'node:http';
import { randomLegalOpponent } from '@mage-rl/core/testing';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EnvServerOptions, type RunningEnvServer, startEnvServer } from './env-server';

async function call(
  server: RunningEnvServer,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`${server.url}${path}`, {
    method,
    ...(body === undefined && method !== 'POST'
      ? {}
      : { body: body ?? '', headers: { 'content-type': 'application/json' } }),
  });
  const text = await r.text();
  return { status: r.status, json: JSON.parse(text) };
}

/** Runs `use` against a server of its own on a free port, closed however `use` ends. */
async function withServer(options: EnvServerOptions, use: (server: RunningEnvServer) => Promise<void>) {
  const server = await startEnvServer(options, { port: 0 });
  try {
    await use(server);
  } finally {
    await server.close();
  }
}

const sokobanServer: EnvServerOptions = { envId: 'sokoban', createEnv: (o) => createSokoban(o) };

describe('mage env-serve (the WebShop-dialect server of our envs)', () => {
  let sokoban: RunningEnvServer;
  let ttt: RunningEnvServer;
  beforeAll(async () => {
    sokoban = await startEnvServer(
      { envId: 'sokoban', createEnv: (o) => createSokoban(o), maxInstances: 3, maxBodyBytes: 2048 },
      { port: 0 },
    );
    ttt = await startEnvServer(
      {
        envId: 'tictactoe',
        createEnv: (o) => createTicTacToe(o),
        createOpponent: (id) => {
          if (id !== 'random') throw new Error(`no opponent ${id}`);
          return randomLegalOpponent(ticTacToeGame(3));
        },
        defaultOpponent: 'random',
      },
      { port: 0 },
    );
  });
  afterAll(async () => {
    await sokoban.close();
    await ttt.close();
  });

  it('binds to 127.0.0.1 by default and answers the health check', async () => {
    expect(sokoban.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await call(sokoban, 'GET', '/')).toEqual({ status: 200, json: 'ok' });
    expect((await call(sokoban, 'GET', '/info')).json).toMatchObject({ env: 'sokoban', dialect: 'webshop' });
  });

  it('plays a WebShop-dialect session: session_id selects the task, plain actions are accepted', async () => {
    const id = (await call(sokoban, 'POST', '/create')).json as number;
    const reset = await call(sokoban, 'POST', '/reset', JSON.stringify({ env_idx: id, session_id: 7 }));
    expect(reset.status).toBe(200);
    const [text] = reset.json as [string, unknown];
    const again = await call(sokoban, 'POST', '/reset', JSON.stringify({ env_idx: id, session_id: 7 }));
    expect((again.json as [string])[0]).toBe(text);
    const other = await call(sokoban, 'POST', '/reset', JSON.stringify({ env_idx: id, session_id: 8 }));
    expect((other.json as [string])[0]).not.toBe(text);
    const actions = (await call(sokoban, 'GET', `/available_actions?env_idx=${id}`)).json as {
      clickables: string[];
    };
    const step = await call(
      sokoban,
      'POST',
      '/step',
      JSON.stringify({ env_idx: id, action: actions.clickables[0] }),
    );
    expect(step.json).toMatchObject({ done: false, info: { valid: true } });
    expect(typeof (step.json as { state: string }).state).toBe('string');
    expect((await call(sokoban, 'POST', '/close', JSON.stringify({ env_idx: id }))).json).toEqual({
      closed: true,
    });
  });

  it('answers bad requests with a 4xx and a JSON error', async () => {
    const cases: [string, string, string | undefined, number, RegExp][] = [
      ['POST', '/step', 'not json', 400, /not JSON/],
      ['POST', '/step', '{"env_idx": -1, "action": "up"}', 400, /env_idx/],
      ['POST', '/step', '{"env_idx": 999, "action": "up"}', 404, /no instance 999/],
      ['POST', '/reset', '{"env_idx": 0, "session_id": 1, "options": {"boxes": 99}}', 404, /no instance/],
      ['POST', '/reset', '{"env_idx": 1, "colour": "red"}', 400, /colour|Unrecognized/],
      ['GET', '/available_actions', undefined, 400, /env_idx/],
      ['GET', '/step', undefined, 405, /not allowed/],
      ['GET', '/nothing', undefined, 404, /no endpoint/],
      ['POST', '/reset', JSON.stringify({ env_idx: 0, pad: 'x'.repeat(5000) }), 413, /limit of 2048 bytes/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const r = await call(sokoban, method, path, body);
      expect([path, r.status]).toEqual([path, status]);
      expect((r.json as { error: string }).error).toMatch(message);
    }
  });

  it('refuses bad options, unknown opponents, another env, steps before reset, and too many instances', async () => {
    const id = (await call(sokoban, 'POST', '/create')).json as number;
    const bad = await call(
      sokoban,
      'POST',
      '/reset',
      JSON.stringify({ env_idx: id, options: { boxes: 99 } }),
    );
    expect(bad.status).toBe(400);
    expect((bad.json as { error: string }).error).toMatch(/sokoban\.boxes/);
    expect((await call(sokoban, 'POST', '/step', JSON.stringify({ env_idx: id, action: 'up' }))).status).toBe(
      409,
    );
    const wrong = await call(sokoban, 'POST', '/reset', JSON.stringify({ env_idx: id, env: 'kuhn-poker' }));
    expect((wrong.json as { error: string }).error).toMatch(/serves env 'sokoban', not 'kuhn-poker'/);
    const t = (await call(ttt, 'POST', '/create')).json as number;
    const opp = await call(ttt, 'POST', '/reset', JSON.stringify({ env_idx: t, opponent: 'mcts-9' }));
    expect([opp.status, (opp.json as { error: string }).error]).toEqual([
      400,
      expect.stringMatching(/unknown opponent 'mcts-9'/),
    ]);
    // maxInstances 3: two more fit, then 503.
    await call(sokoban, 'POST', '/create');
    await call(sokoban, 'POST', '/create');
    const full = await call(sokoban, 'POST', '/create');
    expect(full.status).toBe(503);
  });

  it('a slow body holds no slot: other requests are served meanwhile, and the slow one gets 408', async () => {
    await withServer(
      {
        envId: 'sokoban',
        createEnv: (o) => createSokoban(o),
        maxConcurrent: 1,
        http: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
      },
      async (server) => {
        const slow = request(`${server.url}/create`, {
          method: 'POST',
          headers: { 'content-length': '2', 'content-type': 'application/json' },
        });
        const answered = new Promise<number>((resolve) => {
          slow.on('response', (r) => resolve(r.statusCode ?? 0));
          slow.on('error', () => resolve(0));
        });
        slow.write('{');
        await new Promise((r) => setTimeout(r, 100));
        expect((await call(server, 'POST', '/create', '{}')).status).toBe(200);
        expect(await answered).toBe(408);
      },
    );
  });

  it('drops instances idle past the TTL (so a full server frees up) and caps client-chosen opponent costs', async () => {
    await withServer(
      {
        envId: 'tictactoe',
        createEnv: (o) => createTicTacToe(o),
        createOpponent: () => randomLegalOpponent(ticTacToeGame(3)),
        defaultOpponent: 'random',
        maxInstances: 1,
        instanceTtlMs: 100,
      },
      async (server) => {
        const first = (await call(server, 'POST', '/create', '{}')).json as number;
        const costly = await call(
          server,
          'POST',
          '/reset',
          JSON.stringify({ env_idx: first, opponent: 'mcts-9999999' }),
        );
        expect(costly.status).toBe(400);
        expect(JSON.stringify(costly.json)).toMatch(/costs more than this server allows/);
        await new Promise((r) => setTimeout(r, 250));
        expect((await call(server, 'POST', '/create', '{}')).status).toBe(200);
        expect((await call(server, 'GET', `/observation?env_idx=${first}`)).status).toBe(404);
      },
    );
  });

  it('refuses a forged Host, a cross-site Origin and a text/plain POST', async () => {
    await withServer(sokobanServer, async (server) => {
      const status = (headers: Record<string, string>, method = 'POST') =>
        new Promise<number>((resolve) => {
          request(`${server.url}/create`, { method, headers }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          }).end('{}');
        });
      expect(await status({ 'content-type': 'text/plain' })).toBe(415);
      expect(await status({ 'content-type': 'application/json', origin: 'https://attacker.example' })).toBe(
        403,
      );
      expect(await status({ 'content-type': 'application/json', host: 'attacker.example' })).toBe(421);
      expect(await status({ 'content-type': 'application/json' })).toBe(200);
    });
  });

  it('never stops on arbitrary bodies: every answer is JSON with a status below 500', async () => {
    await withServer(sokobanServer, async (server) => {
      const paths = ['/create', '/reset', '/step', '/parse', '/close'];
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...paths), fc.oneof(fc.json(), fc.string()), async (path, body) => {
          const r = await call(server, 'POST', path, body);
          expect(r.status).toBeLessThan(500);
        }),
        { numRuns: 150, seed: 7 },
      );
      expect((await call(server, 'GET', '/')).status).toBe(200);
    });
  });
});
