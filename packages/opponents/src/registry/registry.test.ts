import { assignOpponents, createRng, type EnvV1, UnknownIdError } from '@mage-rl/core';
import { createKuhnPoker, KUHN_INITIAL_STATE, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { createTicTacToe, initialTicTacToeState } from '@mage-rl/envs/tictactoe';
import { describe, expect, it } from 'vitest';
import { populationPreset } from '../population/presets';
import { createOpponent, type OpponentRegistry, opponentRegistry } from './registry';

describe('opponent registry', () => {
  it('builds every Tic-Tac-Toe id, including any mcts-<N>', () => {
    const reg = opponentRegistry('tictactoe');
    for (const id of [...reg.ids, 'mcts-7', 'minimax']) {
      const op = reg.create(id);
      expect(op.id).toBe(id);
      const a = op.act(initialTicTacToeState(3), { rng: createRng(1), player: 0 });
      expect(a).toBeGreaterThanOrEqual(0);
      expect(a).toBeLessThan(9);
    }
    expect(reg.ids).toContain('pattern-bottom-right-sweep');
    expect(reg.has('mcts-0')).toBe(false);
  });

  it('builds every Kuhn id', () => {
    const reg = opponentRegistry('kuhn-poker');
    const s = kuhnGame.observe!(kuhnGame.apply(KUHN_INITIAL_STATE, 'deal:KQ'), 0);
    for (const id of reg.ids) {
      const a = reg.create(id).act(s, { rng: createRng(1), player: 0 });
      expect(['PASS', 'BET']).toContain(a);
    }
    expect(reg.ids).toEqual(['conservative', 'aggressive', 'intermediate', 'cfr', 'cfr-sampled', 'random']);
  });

  it('unknown ids fail with the list of known ids', () => {
    expect(() => createOpponent('tictactoe', 'mcts-abc')).toThrow(UnknownIdError);
    expect(() => createOpponent('tictactoe', 'nobody')).toThrow(
      /Known opponent ids: mcts-<N> \(N = 1\.\.9999999 simulations per move\), minimax, random, pattern-centre-first/,
    );
    expect(() => createOpponent('tictactoe', 'mcts-0')).toThrow(/mcts-<N> \(N = 1\.\.9999999/);
    expect(() => createOpponent('kuhn-poker', 'mcts-100')).toThrow(/conservative, aggressive/);
    expect(() => opponentRegistry('chess')).toThrow(
      /Unknown env 'chess'. Known env ids: tictactoe, kuhn-poker/,
    );
  });
});

describe('population presets', () => {
  it('Tic-Tac-Toe balanced: half mcts-100, half the patterns and random, by weight', () => {
    const pop = populationPreset('tictactoe', 'balanced');
    const weight = (id: string) => pop.entries.find((e) => e.id === id)?.weight ?? 0;
    expect(weight('mcts-100')).toBeCloseTo(0.5, 12);
    expect(pop.entries).toHaveLength(8);
    expect(pop.entries.reduce((a, e) => a + e.weight, 0)).toBeCloseTo(1, 12);
    const reg = opponentRegistry('tictactoe');
    for (const e of pop.entries) expect(reg.has(e.id)).toBe(true);
    // Sampled per iteration, about half the groups face MCTS.
    const groups = assignOpponents(pop, { groups: 2000, groupSize: 1, iteration: 0, rng: createRng(3) });
    const mcts = groups.filter((g) => g[0] === 'mcts-100').length / 2000;
    expect(mcts).toBeGreaterThan(0.45);
    expect(mcts).toBeLessThan(0.55);
  });

  it('Kuhn balanced and the out-of-domain sets', () => {
    expect(populationPreset('kuhn-poker', 'balanced').entries).toEqual([
      { id: 'conservative', weight: 0.3 },
      { id: 'aggressive', weight: 0.3 },
      { id: 'intermediate', weight: 0.4 },
    ]);
    expect(populationPreset('kuhn-poker', 'ood').entries.map((e) => e.id)).toEqual(['cfr']);
    expect(populationPreset('tictactoe', 'ood').entries.map((e) => e.id)).toEqual(['mcts-1000']);
    const fixed = populationPreset('kuhn-poker', 'balanced', { mode: 'partition', grouping: 'mixed' });
    expect(fixed.mode).toBe('partition');
    expect(fixed.grouping).toBe('mixed');
    expect(() => populationPreset('kuhn-poker', 'nope')).toThrow(/Known population ids: balanced, ood/);
  });
});

describe('opponents inside the envs', () => {
  it('every registered opponent plays full Tic-Tac-Toe and Kuhn episodes from both seats', () => {
    const cases = [
      {
        env: createTicTacToe() as unknown as EnvV1,
        reg: opponentRegistry('tictactoe') as OpponentRegistry<unknown, unknown>,
      },
      {
        env: createKuhnPoker() as unknown as EnvV1,
        reg: opponentRegistry('kuhn-poker') as OpponentRegistry<unknown, unknown>,
      },
    ];
    for (const { env, reg } of cases) {
      for (const id of [...reg.ids, ...(reg.envId === 'tictactoe' ? ['minimax'] : [])]) {
        for (const seat of ['first', 'second'] as const) {
          const rng = createRng(`${id}/${seat}`);
          const episode = env.createEpisode({
            seed: 1,
            seat,
            style: 'compact',
            opponent: reg.create(id),
            rng,
          });
          episode.reset(0);
          let steps = 0;
          while (!episode.done) {
            const legal = env.game.legalActions(episode.state);
            const step = episode.step(episode.parse(env.formatAction(rng.pick(legal), 'compact')));
            expect(step.valid).toBe(true);
            steps++;
          }
          expect(steps).toBeGreaterThan(0);
          expect(env.game.isTerminal(episode.state)).toBe(true);
        }
      }
    }
  });
});
