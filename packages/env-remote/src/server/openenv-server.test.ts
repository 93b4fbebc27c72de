import { firstLegalOpponent, randomLegalOpponent } from '@mage-rl/core/testing';
import { createKuhnPoker, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { createTicTacToe, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openEnvSocketUrl } from '../openenv/protocol';
import { type EnvServerOptions, type RunningEnvServer, startEnvServer } from './env-server';
import { opponentForSeed } from './env-service';

type Message = { type: string; data: Record<string, unknown> };

/**
 * A client as OpenEnv's Python `EnvClient` is: one WebSocket on `<base>/ws`, a JSON message sent, the
 * next message read as its answer.
 */
async function connect(base: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(openEnvSocketUrl(base), { headers });
  const inbox: string[] = [];
  const waiting: ((text: string) => void)[] = [];
  ws.on('message', (d) => {
    const next = waiting.shift();
    if (next) next(String(d));
    else inbox.push(String(d));
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const next = () =>
    new Promise<Message>((resolve) => {
      const take = (t: string) => resolve(JSON.parse(t) as Message);
      const queued = inbox.shift();
      if (queued !== undefined) take(queued);
      else waiting.push(take);
    });
  return {
    ws,
    closed,
    next,
    /** Sends `message` (an object as JSON, a string as it is) and reads the answer. */
    send(message: unknown): Promise<Message> {
      ws.send(typeof message === 'string' ? message : JSON.stringify(message));
      return next();
    },
  };
}

const observationOf = (m: Message) =>
  m.data.observation as Record<string, unknown> & { info: Record<string, unknown> };

const tttServer: EnvServerOptions = {
  envId: 'tictactoe',
  protocol: 'openenv',
  description: 'Tic-Tac-Toe against a random opponent',
  createEnv: (o) => createTicTacToe(o),
  createOpponent: () => randomLegalOpponent(ticTacToeGame(3)),
  defaultOpponent: 'random',
  maxInstances: 2,
  maxBodyBytes: 4096,
};

describe('mage env-serve --protocol openenv', () => {
  let ttt: RunningEnvServer;
  let kuhn: RunningEnvServer;
  beforeAll(async () => {
    ttt = await startEnvServer(tttServer, { port: 0 });
    kuhn = await startEnvServer(
      {
        envId: 'kuhn-poker',
        protocol: 'openenv',
        createEnv: (o) => createKuhnPoker(o),
        createOpponent: () => randomLegalOpponent(kuhnGame),
        defaultOpponent: 'random',
      },
      { port: 0 },
    );
  });
  afterAll(async () => {
    await ttt.close();
    await kuhn.close();
  });

  it('answers /health, /metadata and /schema as an OpenEnv server, with textarena_env fields', async () => {
    expect(await (await fetch(`${ttt.url}/health`)).json()).toEqual({ status: 'healthy' });
    expect(await (await fetch(`${ttt.url}/metadata`)).json()).toMatchObject({
      name: 'tictactoe',
      description: 'Tic-Tac-Toe against a random opponent',
    });
    const schema = (await (await fetch(`${ttt.url}/schema`)).json()) as Record<
      string,
      { properties: object; required: string[] }
    >;
    expect(Object.keys(schema)).toEqual(['action', 'observation', 'state']);
    expect(schema.action?.required).toEqual(['message']);
    expect(Object.keys(schema.observation?.properties ?? {})).toEqual(
      expect.arrayContaining(['prompt', 'messages', 'current_player_id', 'legal_players', 'info']),
    );
    expect(await (await fetch(`${ttt.url}/state`)).json()).toMatchObject({ episode_id: null, step_count: 0 });
  });

  it('plays a whole Tic-Tac-Toe game over /ws: reset with a seed, step until done, state, close', async () => {
    const c = await connect(ttt.url);
    const reset = await c.send({ type: 'reset', data: { seed: 11, episode_id: 'ep-1' } });
    expect(reset.type).toBe('observation');
    expect(reset.data).toMatchObject({ reward: 0, done: false });
    let o = observationOf(reset);
    expect(o.prompt).toMatch(/Tic-Tac-Toe[\s\S]*Empty cells: \(1, 1\)/);
    expect(o).toMatchObject({ messages: [], current_player_id: 0, legal_players: [0] });
    let answer = reset;
    let steps = 0;
    while (answer.data.done !== true) {
      const legal = (o.info.observation as { legal: string[] }).legal;
      answer = await c.send({ type: 'step', data: { message: legal[0] } });
      expect(answer.type).toBe('observation');
      steps++;
      o = observationOf(answer);
      expect(o.messages).toEqual([{ sender_id: -1, content: o.info.event, category: 'GAME' }]);
    }
    const outcome = o.info.outcome as { label: string };
    expect(['win', 'loss', 'draw']).toContain(outcome.label);
    expect(answer.data.reward).toBe(outcome.label === 'win' ? 10 : outcome.label === 'loss' ? -10 : 0);
    const state = await c.send({ type: 'state' });
    expect(state).toEqual({
      type: 'state',
      data: {
        episode_id: 'ep-1',
        step_count: steps,
        env_id: 'tictactoe',
        num_players: 2,
        max_turns: 8,
        turn: steps,
        last_reward: answer.data.reward,
        last_info: o.info,
      },
    });
    // A step after the end is the env's refusal, and the session goes on.
    expect((await c.send({ type: 'step', data: { message: '(1, 1)' } })).data).toMatchObject({
      code: 'EXECUTION_ERROR',
    });
    c.ws.send(JSON.stringify({ type: 'close' }));
    expect(await c.closed).toBe(1000);
  });

  it('plays a whole Kuhn Poker hand, with the same deal for the same seed', async () => {
    const c = await connect(kuhn.url);
    const first = observationOf(await c.send({ type: 'reset', data: { seed: 5 } }));
    let answer: Message | undefined;
    let o = first;
    for (let i = 0; i < 4 && answer?.data.done !== true; i++) {
      answer = await c.send({ type: 'step', data: { message: i === 0 ? 'BET' : 'PASS' } });
      o = observationOf(answer);
      expect(o.info.valid).toBe(true);
    }
    expect(answer?.data.done).toBe(true);
    expect(o.info.outcome).toBeDefined();
    const again = observationOf(await c.send({ type: 'reset', data: { seed: 5 } }));
    expect(again.prompt).toBe(first.prompt);
    c.ws.close();
  });

  it('answers bad JSON, unknown types and bad fields with typed errors, and keeps the session', async () => {
    const c = await connect(ttt.url);
    const bad = await c.send('{not json');
    expect(bad.type).toBe('error');
    expect(bad.data).toMatchObject({ code: 'INVALID_JSON' });
    expect(String(bad.data.message)).toMatch(/^Invalid JSON: /);
    expect((await c.send({ type: 'dance' })).data).toEqual({
      message: 'Unknown message type: dance',
      code: 'UNKNOWN_TYPE',
    });
    expect((await c.send([1, 2])).data).toMatchObject({ code: 'UNKNOWN_TYPE' });
    expect((await c.send({ type: 'step', data: { message: '(1, 1)' } })).data).toMatchObject({
      code: 'EXECUTION_ERROR',
      message: expect.stringMatching(/reset first/),
    });
    const wrongField = await c.send({ type: 'step', data: { msg: '(1, 1)' } });
    expect(wrongField.data).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid message' });
    expect(wrongField.data.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc: ['message'] })]),
    );
    expect((await c.send({ type: 'reset', data: { seed: -1 } })).data).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    expect((await c.send({ type: 'reset', extra: 1 })).data).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await c.send({ type: 'reset', data: { options: { size: 99 } } })).data).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    expect((await c.send({ type: 'reset', data: { opponent: 'mcts-999999' } })).data).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    // An unknown reset field is ignored, as an OpenEnv env ignores keyword arguments it does not take.
    expect((await c.send({ type: 'reset', data: { seed: 1, temperature: 3 } })).type).toBe('observation');
    c.ws.close();
  });

  it('limits sessions, message sizes and idle time; refuses foreign origins and hosts', async () => {
    const a = await connect(ttt.url);
    const b = await connect(ttt.url);
    const full = await connect(ttt.url);
    expect((await full.next()).data).toMatchObject({
      code: 'CAPACITY_REACHED',
      active_sessions: 2,
      max_sessions: 2,
    });
    expect(await full.closed).toBe(1013);
    b.ws.close();
    await b.closed;
    // A message over the body limit closes that session (1009); the server keeps serving.
    a.ws.send(JSON.stringify({ type: 'step', data: { message: 'x'.repeat(5000) } }));
    expect(await a.closed).toBe(1009);
    await expect(connect(ttt.url, { origin: 'https://evil.example' })).rejects.toThrow(/403/);
    await expect(connect(ttt.url, { host: 'evil.example' })).rejects.toThrow(/421/);
    const wrongPath = new WebSocket(`${openEnvSocketUrl(ttt.url)}x`);
    await expect(new Promise((_, reject) => wrongPath.once('error', reject))).rejects.toThrow(/404/);
    const ok = await connect(ttt.url);
    expect((await ok.send({ type: 'reset', data: {} })).type).toBe('observation');
    ok.ws.close();

    const idle = await startEnvServer({ ...tttServer, instanceTtlMs: 200 }, { port: 0 });
    try {
      const c = await connect(idle.url);
      expect(await c.closed).toBe(1000);
    } finally {
      await idle.close();
    }
  });

  it('answers the stateless HTTP reset and step, and bad requests with a 4xx JSON detail', async () => {
    const post = (path: string, body: string, type = 'application/json') =>
      fetch(`${ttt.url}${path}`, { method: 'POST', body, headers: { 'content-type': type } });
    const reset = (await (await post('/reset', '{"seed": 3}')).json()) as Record<string, unknown>;
    expect(reset).toMatchObject({ reward: 0, done: false, observation: { current_player_id: 0 } });
    const step = await post('/step', JSON.stringify({ action: { message: '(2, 2)' }, request_id: 'r1' }));
    expect(step.status).toBe(200);
    expect(await step.json()).toMatchObject({
      done: false,
      observation: { messages: [{ category: 'GAME' }] },
    });
    const wrong = await post('/step', JSON.stringify({ action: { move: '(2, 2)' } }));
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toEqual({ detail: expect.stringMatching(/'message'/) });
    expect((await post('/reset', '{oops')).status).toBe(400);
    expect((await post('/reset', '{}', 'text/plain')).status).toBe(415);
    expect((await post('/reset', JSON.stringify({ pad: 'x'.repeat(5000) }))).status).toBe(413);
    expect((await fetch(`${ttt.url}/nowhere`)).status).toBe(404);
    expect((await fetch(`${ttt.url}/health`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${ttt.url}/ws`)).status).toBe(426);
    expect(await (await fetch(`${ttt.url}/health`)).json()).toEqual({ status: 'healthy' });
  });

  it('draws the opponent of a reset that names none per task seed from the default population', async () => {
    const { defaultOpponent: _, ...unpinned } = tttServer;
    const entries = [
      { id: 'random', weight: 1 },
      { id: 'first-legal', weight: 3 },
    ];
    const made: string[] = [];
    const server = await startEnvServer(
      {
        ...unpinned,
        defaultPopulation: { name: 'mix', entries },
        createOpponent: (id) => {
          made.push(id);
          if (id === 'first-legal') return firstLegalOpponent(ticTacToeGame(3));
          if (id === 'random') return randomLegalOpponent(ticTacToeGame(3));
          throw new Error(`unknown opponent ${id}`);
        },
      },
      { port: 0 },
    );
    try {
      const c = await connect(server.url);
      const metadataOf = async (data: Record<string, unknown>) =>
        (await c.send({ type: 'reset', data })).data.metadata;
      // Seedless resets play the session's seeds 0, 1, 2 …; the opponent is the seed's draw.
      for (const seed of [0, 1, 2]) {
        expect(await metadataOf({})).toEqual({
          env: 'tictactoe',
          seed,
          attempt: 0,
          opponent: opponentForSeed(entries, seed),
        });
      }
      // A later attempt without a seed continues the meta-episode: its seed, its opponent, its episode.
      const episodes = made.length;
      expect(await metadataOf({ attempt: 1 })).toMatchObject({ seed: 2, attempt: 1 });
      expect(made.length).toBe(episodes);
      // Every result of the session carries what its reset played.
      const step = await c.send({ type: 'step', data: { message: '(2, 2)' } });
      expect(step.data.metadata).toMatchObject({
        seed: 2,
        attempt: 1,
        opponent: opponentForSeed(entries, 2),
      });
      expect(await metadataOf({ seed: 9 })).toMatchObject({ seed: 9, opponent: opponentForSeed(entries, 9) });
      expect(await metadataOf({ seed: 9, opponent: 'random' })).toMatchObject({ opponent: 'random' });
      c.ws.close();
      // The count is the session's: a new session starts again from seed 0.
      const other = await connect(server.url);
      expect((await other.send({ type: 'reset', data: {} })).data.metadata).toMatchObject({ seed: 0 });
      other.ws.close();
      // The draw follows the weights: over 200 seeds the heavier opponent comes about 3 times as often.
      const draws = Array.from({ length: 200 }, (_, seed) => opponentForSeed(entries, seed));
      const heavy = draws.filter((id) => id === 'first-legal').length;
      expect(heavy).toBeGreaterThan(120);
      expect(heavy).toBeLessThan(180);
    } finally {
      await server.close();
    }
    // With neither a population nor a pinned opponent, a reset must name one.
    const bare = await startEnvServer({ ...unpinned }, { port: 0 });
    try {
      const c = await connect(bare.url);
      expect((await c.send({ type: 'reset', data: {} })).data).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(
          /needs an opponent: send "opponent" or start the server with --opponent/,
        ),
      });
      c.ws.close();
    } finally {
      await bare.close();
    }
  });
});
