import { ConfigError, createRng, type EnvEpisodeV1 } from '@mage-rl/core';
import { createKuhnPoker } from '@mage-rl/envs/kuhn-poker';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEnvError } from '../errors';
import { closeRemoteEnvs } from '../lifecycle';
import { type ChildServer, FAST_REMOTE, spawnServer } from '../spawn-server.test-helper';
import { createOpenEnv, type OpenEnvState } from './openenv';

const servers: ChildServer[] = [];
afterEach(async () => {
  closeRemoteEnvs();
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function numberGame(args: readonly string[] = []): Promise<ChildServer> {
  const server = await spawnServer('openenv-number-game.mjs', args);
  servers.push(server);
  return server;
}

function episode(url: string, seed: number, options: Record<string, unknown> = {}) {
  return createOpenEnv({ url, split: 'in-domain', ...FAST_REMOTE, ...options }).createEpisode({
    seed,
    seat: 'first',
    style: 'verbose',
    rng: createRng(seed),
  });
}

/** The narrowest "between L and H" the text states. */
function range(text: string): [number, number] {
  let [low, high] = [1, 100];
  for (const m of text.matchAll(/between (\d+) and (\d+)/g)) {
    low = Math.max(low, Number(m[1]));
    high = Math.min(high, Number(m[2]));
  }
  return [low, high];
}

/** Binary search until the attempt ends; the steps' rewards. */
function play(e: EnvEpisodeV1<OpenEnvState, string>): number[] {
  const rewards: number[] = [];
  let text = e.initialText();
  while (!e.done) {
    const [low, high] = range(text);
    const s = e.step(e.parse(`<action>${Math.floor((low + high) / 2)}</action>`));
    rewards.push(s.reward);
    text = s.observation.text;
  }
  return rewards;
}

describe('an OpenEnv server as a mage env (textarena_env convention)', () => {
  it('plays whole attempts on one WebSocket session: reset with the seed, step, state at the end', async () => {
    const { url } = await numberGame();
    const e = episode(url, 7);
    const first = e.reset(0);
    // The prompt once (its PROMPT message is skipped), the facts of the observation's info kept.
    expect(first.text).toBe(
      'I picked a whole number between 1 and 100. Guess it: answer with the number alone.',
    );
    expect(first.info).toMatchObject({ seed: 7, reward: 0, server: { guesses: 0, low: 1, high: 100 } });
    expect(e.rules()).toMatch(/<action>/);
    const rewards = play(e);
    expect(rewards.at(-1)).toBe(1);
    expect(rewards.slice(0, -1).every((r) => r === 0)).toBe(true);
    expect(e.state.score).toBe(1);
    expect(e.state.serverState).toEqual({ episode_id: 'guess-1', step_count: rewards.length });
    // The secret of seed 7 is 1 + (37·7 + 11) mod 100 = 71.
    expect(e.state.text).toContain('71 is right!');

    // The next attempt resets the same seed on the same session; an invalid answer spends a turn only.
    e.reset(1);
    const invalid = e.step(e.parse('no tags'));
    expect(invalid).toMatchObject({ valid: false, reward: 0, done: false });
    const low = e.step(e.parse('<action> 10 </action>'));
    expect(low.event).toBe('10 → 10 is too low. It is between 11 and 100.');
    expect(e.turn).toBe(2);
  });

  it('ends an attempt at maxTurns as truncated, and one the server ends without reward as a failure', async () => {
    const { url } = await numberGame();
    const short = episode(url, 7, { maxTurns: 2 });
    short.reset(0);
    short.step(short.parse('<action>1</action>'));
    const last = short.step(short.parse('<action>2</action>'));
    expect(last).toMatchObject({ done: true, outcome: { label: 'truncated', truncated: true } });
    const lost = episode(url, 7);
    lost.reset(0);
    let s = lost.step(lost.parse('<action>1</action>'));
    while (!s.done) s = lost.step(lost.parse('<action>1</action>'));
    expect(s.outcome).toMatchObject({ label: 'failure', success: false });
    expect(lost.turn).toBe(10);
  });

  it('reopens a session the server dropped before a reset; a session lost mid-attempt fails the step', async () => {
    const { url } = await numberGame(['--idle-ms', '300']);
    const e = episode(url, 3);
    e.reset(0);
    e.step(e.parse('<action>50</action>'));
    await new Promise((r) => setTimeout(r, 800));
    expect(() => e.step(e.parse('<action>25</action>'))).toThrow(
      /lost the session mid-attempt.*next reset opens a new session/,
    );
    await new Promise((r) => setTimeout(r, 800));
    expect(e.reset(1).info).toMatchObject({ server: { guesses: 0 } });
    expect(play(e).at(-1)).toBe(1);
  });

  it('reads /schema first: a server whose fields do not fit is named with the field and the option', async () => {
    const { url } = await numberGame(['--action-field', 'guess']);
    const e = episode(url, 1);
    expect(() => e.reset(0)).toThrow(RemoteEnvError);
    expect(() => e.reset(0)).toThrow(/fields 'guess', 'metadata', none of them 'message'.*actionField/);
    const fitted = episode(url, 1, { actionField: 'guess' });
    fitted.reset(0);
    expect(play(fitted).at(-1)).toBe(1);
    expect(() => episode(url, 1, { actionField: 'guess', promptField: 'text' }).reset(0)).toThrow(
      /none of them 'text'.*promptField/,
    );
  });

  it('says when the server is full, and when nothing listens', async () => {
    const { url } = await numberGame(['--max-sessions', '1']);
    const env = createOpenEnv({ url, ...FAST_REMOTE });
    const task = { seat: 'first', style: 'verbose', rng: createRng(1) } as const;
    const a = env.createEpisode({ ...task, seed: 1 });
    const b = env.createEpisode({ ...task, seed: 2 });
    a.reset(0);
    expect(() => b.reset(0)).toThrow(/error CAPACITY_REACHED.*more sessions/);
    const gone = 'http://127.0.0.1:9';
    expect(() => episode(gone, 1).reset(0)).toThrow(/did not answer GET \/schema.*Is the server running\?/);
  });

  it('checks its options before any request', () => {
    expect(() => createOpenEnv({})).toThrow(/openenv\.url.*--env-url/);
    expect(() => createOpenEnv({ url: 'http://x', actionField: '' })).toThrow(ConfigError);
    expect(() => createOpenEnv({ url: 'http://x', split: 'out-of-domain' })).toThrow(/outOfDomainTasks/);
    const env = createOpenEnv({ url: 'http://x' });
    expect(env.options).toMatchObject({
      actionField: 'message',
      promptField: 'prompt',
      messagesField: 'messages',
    });
    expect(env.formatAction('42', 'verbose')).toBe('<action>42</action>');
  });
});

describe("mage-rl's own envs through the OpenEnv client", () => {
  it('plays served Tic-Tac-Toe to the end: rewards, outcome and the server state', async () => {
    const server = await spawnServer('serve-env.ts', ['tictactoe', 'openenv']);
    servers.push(server);
    const e = episode(server.url, 2);
    expect(e.reset(0).text).toContain('You are playing Tic-Tac-Toe');
    let final: ReturnType<typeof e.step> | undefined;
    while (!e.done) {
      final = e.step(e.parse(`<action>${legalOf(e.state)[0]}</action>`));
      expect(final.valid).toBe(true);
    }
    // Win +10, loss −10, draw 0: success exactly when the last reward is positive.
    expect(final?.outcome?.success).toBe((final?.reward ?? 0) > 0);
    expect(e.state.serverState).toMatchObject({ env_id: 'tictactoe', step_count: e.turn, max_turns: 8 });
  });

  it("sends the attempt with each reset, so Kuhn Poker's new-deal deals every attempt as in process", async () => {
    const server = await spawnServer('serve-env.ts', ['kuhn-poker', 'openenv', '{"mode":"new-deal"}']);
    servers.push(server);
    const e = episode(server.url, 4);
    e.reset(0);
    // The same task in process, on the reset seed the client sent and the server seeded its task with.
    const local = createKuhnPoker({ mode: 'new-deal' }).createEpisode({
      seed: e.state.seed,
      seat: 'first',
      style: 'verbose',
      rng: createRng(e.state.seed),
    });
    const deals = [0, 1, 2].map((attempt) => local.reset(attempt).text);
    // The seed is chosen so that the attempts' deals differ: a server that sees attempt 0 every time fails.
    expect(new Set(deals).size).toBeGreaterThan(1);
    for (const [attempt, text] of deals.entries()) {
      expect(e.reset(attempt).text, `attempt ${attempt}`).toContain(text);
      e.step(e.parse('<action>PASS</action>'));
    }
  });
});

/** The legal moves mage's Tic-Tac-Toe lists in its observation's info. */
function legalOf(s: OpenEnvState): string[] {
  const facts = s.info as { observation?: { legal?: string[] } };
  return facts.observation?.legal ?? [];
}
