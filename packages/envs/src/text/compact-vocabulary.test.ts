import { createRng, type EnvV1 } from '@mage-rl/core';
import { randomLegalOpponent } from '@mage-rl/core/testing';
import { describe, expect, it } from 'vitest';
import { createDoors } from '../doors';
import { createKuhnPoker } from '../kuhn-poker';
import { createRps } from '../rps';
import { createSokoban } from '../sokoban';
import { createTicTacToe } from '../tictactoe';
import { createTreasure } from '../treasure';

/** Every whitespace-separated token the compact style produces while playing random games. */
function compactTokens<S, A>(env: EnvV1<S, A>, seeds: number): Set<string> {
  const tokens = new Set<string>();
  const add = (text: string | undefined) => {
    for (const t of (text ?? '').split(/\s+/)) if (t !== '') tokens.add(t);
  };
  const opponent = env.needsOpponent ? randomLegalOpponent(env.game) : undefined;
  for (let seed = 0; seed < seeds; seed++) {
    for (const seat of env.needsOpponent ? (['first', 'second'] as const) : (['first'] as const)) {
      const ep = env.createEpisode({
        seed,
        seat,
        style: 'compact',
        rng: createRng(seed),
        ...(opponent ? { opponent } : {}),
      });
      const rng = createRng(`vocab/${seed}`);
      add(ep.rules());
      add(ep.initialText());
      for (let attempt = 0; attempt < 2; attempt++) {
        ep.reset(attempt);
        while (!ep.done) {
          const legal = env.game.legalActions(ep.state);
          const text =
            rng.next() < 0.2 || legal.length === 0 ? 'garbage' : env.formatAction(rng.pick(legal), 'compact');
          add(text === 'garbage' ? '' : text);
          const step = ep.step(ep.parse(text));
          add(step.observation.text);
          add(step.event);
        }
        add(ep.reveal());
      }
    }
  }
  return tokens;
}

const RULE_WORDS = [
  '.',
  ':',
  '<',
  'in',
  'a',
  'row',
  'wins',
  'answer',
  'or',
  'on',
  'onto',
  'every',
  'up',
  'to',
];

/** Plays `env` in the compact style and expects no tokens but rule words and `words` (space-separated). */
function expectOnlyWords<S, A>(env: EnvV1<S, A>, seeds: number, words: string): Set<string> {
  const tokens = compactTokens(env, seeds);
  const allowed = new Set([...RULE_WORDS, ...words.split(' ')]);
  expect([...tokens].filter((t) => !allowed.has(t))).toEqual([]);
  return tokens;
}

describe('compact style vocabulary', () => {
  it('tictactoe uses a few dozen tokens', () => {
    expectOnlyWords(
      createTicTacToe(),
      30,
      'tictactoe x you X opponent O board ( , ) invalid <action> </action> col 1 2 3',
    );
  });

  it('kuhn-poker uses a few dozen tokens', () => {
    expectOnlyWords(
      createKuhnPoker(),
      30,
      'kuhn poker cards J Q K ante 1 PASS BET higher card wins showdown you act first second <action> </action> history none opp end +1 -1 +2 -2 invalid',
    );
  });

  it('sokoban uses a few dozen tokens', () => {
    const tokens = expectOnlyWords(
      createSokoban(),
      10,
      'sokoban push X O # wall _ floor target box √ P you S 3 moves <action> left </action> room down right , solved stuck invalid',
    );
    expect(tokens.size).toBeLessThan(60);
  });

  it('treasure uses a few dozen tokens', () => {
    const tokens = expectOnlyWords(
      createTreasure({ maxTurns: 2 }),
      20,
      'treasure find the hidden cell of grid by is north south east west col probes last probe found 1 2 3 <action> </action> invalid',
    );
    expect(tokens.size).toBeLessThan(45);
  });

  it('doors uses a few dozen tokens', () => {
    expectOnlyWords(
      createDoors(),
      20,
      'doors prize is behind one of 3 open door empty 1 2 <action> </action> invalid',
    );
  });

  it('rps uses a few dozen tokens', () => {
    const tokens = expectOnlyWords(
      createRps(),
      20,
      'rock paper scissors 3 throws beats win throw throw 1 2 of you opp draw loss end <action> </action> invalid',
    );
    expect(tokens.size).toBeLessThan(40);
  });
});
