import { createRng, type EnvEpisodeV1, type EnvV1 } from '@mage-rl/core';
import { randomLegalOpponent } from '@mage-rl/core/testing';
import { createKuhnPoker, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRemoteEnvs } from '../lifecycle';
import { type ChildServer, spawnServer } from '../spawn-server.test-helper';
import { createServedEnv } from './served';

const connection = (url: string) => ({
  url,
  timeoutMs: 10_000,
  retries: 1,
  retryDelayMs: 50,
  maxInstances: 8,
});

/**
 * Plays the same responses on the in-process env and on the served one, attempt after attempt, and
 * returns both transcripts. Responses: mostly legal moves, sometimes an illegal or untagged answer.
 */
function playBoth<S, A>(
  local: EnvV1<S, A>,
  remote: EnvV1<S, A>,
  seed: number,
  opponent: (() => ReturnType<typeof randomLegalOpponent>) | undefined,
): { local: unknown[]; remote: unknown[] } {
  const task = (env: EnvV1<S, A>) =>
    env.createEpisode({
      seed,
      seat: seed % 2 === 0 ? 'first' : 'second',
      style: seed % 3 === 0 ? 'compact' : 'verbose',
      rng: createRng(seed),
      ...(opponent ? { opponent: opponent() as never } : {}),
    });
  const a = task(local);
  const b = task(remote);
  const log = { local: [] as unknown[], remote: [] as unknown[] };
  const choose = createRng(seed).split('responses');
  const record = (e: EnvEpisodeV1<S, A>, into: unknown[], what: unknown) => into.push(what, e.turn, e.done);
  for (let attempt = 0; attempt < 2; attempt++) {
    record(a, log.local, [a.reset(attempt), a.rules(), a.initialText()]);
    record(b, log.remote, [b.reset(attempt), b.rules(), b.initialText()]);
    while (!a.done) {
      const legal = local.game.legalActions(a.state);
      const r = choose.next();
      const response =
        r < 0.1
          ? 'I think I will wait.'
          : r < 0.2
            ? '<action>(9, 9)</action> <action>down, down, down, down</action>'
            : `Let me see. ${local.formatAction(legal[choose.int(legal.length)] as A, a.task.style)}`;
      const pa = a.parse(response);
      const pb = b.parse(response);
      record(a, log.local, [pa, a.step(pa)]);
      record(b, log.remote, [pb, b.step(pb)]);
    }
    log.local.push(a.reveal());
    log.remote.push(b.reveal());
  }
  return log;
}

describe('a served env plays like the in-process one', () => {
  const servers: Record<string, ChildServer> = {};
  beforeAll(async () => {
    const [s, t, k] = await Promise.all([
      spawnServer('serve-env.ts', ['sokoban']),
      spawnServer('serve-env.ts', ['tictactoe']),
      spawnServer('serve-env.ts', ['kuhn-poker']),
    ]);
    Object.assign(servers, { sokoban: s, tictactoe: t, 'kuhn-poker': k });
  });
  afterAll(async () => {
    closeRemoteEnvs();
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  });

  it('Sokoban: same observations, anchors, rewards, events, outcomes and parses for the same seeds', () => {
    const local = createSokoban({});
    const remote = createServedEnv(createSokoban({}), connection(servers.sokoban!.url));
    for (const seed of [1, 2, 3, 17, 4_000_000_001]) {
      const log = playBoth(local, remote, seed, undefined);
      expect(log.remote).toEqual(log.local);
      expect(log.local.length).toBeGreaterThan(8);
    }
  });

  it('Sokoban with other options (sent with each reset): 3-box rooms', () => {
    const local = createSokoban({ boxes: 3, maxTurns: 4 });
    const remote = createServedEnv(
      createSokoban({ boxes: 3, maxTurns: 4 }),
      connection(servers.sokoban!.url),
    );
    const log = playBoth(local, remote, 5, undefined);
    expect(log.remote).toEqual(log.local);
  });

  it('Tic-Tac-Toe and Kuhn Poker against the same seeded opponent, both seats', () => {
    const ttt = () => randomLegalOpponent(ticTacToeGame(3));
    const kuhn = () => randomLegalOpponent(kuhnGame);
    for (const seed of [1, 2, 6]) {
      const t = playBoth(
        createTicTacToe({}),
        createServedEnv(createTicTacToe({}), connection(servers.tictactoe!.url)),
        seed,
        ttt,
      );
      expect(t.remote).toEqual(t.local);
      const mode = { mode: 'new-deal' } as const;
      const k = playBoth(
        createKuhnPoker(mode),
        createServedEnv(createKuhnPoker(mode), connection(servers['kuhn-poker']!.url)),
        seed,
        kuhn,
      );
      expect(k.remote).toEqual(k.local);
    }
  });

  it('refuses a server that serves another env, naming both', () => {
    const remote = createServedEnv(createTicTacToe({}), connection(servers.sokoban!.url));
    const e = remote.createEpisode({ seed: 1, seat: 'first', style: 'verbose', rng: createRng(1) });
    expect(() => e.reset(0)).toThrow(/serves env 'sokoban', not 'tictactoe'.*mage env-serve tictactoe/);
  });
});
