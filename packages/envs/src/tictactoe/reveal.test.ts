import { ConfigError, createRng, type OpponentV1 } from '@mage-rl/core';
import { firstLegalOpponent, randomLegalOpponent } from '@mage-rl/core/testing';
import { describeEnvConformance } from '@mage-rl/core/testing/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFrozenTicTacToe, createTicTacToe, type TicTacToeReveal } from './env';
import { type TicTacToeAction, type TicTacToeState, ticTacToeGame } from './game';
import { placeMoves, playRandomAttempt } from './random-attempt.test-helper';

describeEnvConformance(
  'tictactoe revealed moves',
  () => createTicTacToe({ reveal: 'moves', replies: 'board' }),
  { opponent: randomLegalOpponent(ticTacToeGame(3)) },
);

describeEnvConformance('tictactoe-frozen', () => createFrozenTicTacToe(), {
  opponent: randomLegalOpponent(ticTacToeGame(3)),
});

const first = firstLegalOpponent(ticTacToeGame(3));

function episode(
  seat: 'first' | 'second',
  style: 'verbose' | 'compact',
  opponent: OpponentV1<TicTacToeState, TicTacToeAction> = first,
  reveal: TicTacToeReveal = 'moves',
) {
  return createTicTacToe({ reveal }).createEpisode({ seed: 7, seat, style, rng: createRng(7), opponent });
}

/** Plays `answers` (raw responses) until the attempt ends; asserts nothing is revealed before it does. */
function play(ep: ReturnType<typeof episode>, answers: readonly string[]): void {
  for (const answer of answers) {
    expect(ep.reveal()).toBeUndefined();
    ep.step(ep.parse(answer));
    if (ep.done) return;
  }
  throw new Error('the attempt did not end');
}

describe("tictactoe reveal: 'moves'", () => {
  it('a won game, agent first: every move of both sides in order, nothing before the end', () => {
    const ep = episode('first', 'compact');
    ep.reset(0);
    // X (3,1), O the first empty cell (1,1); X (3,2), O (1,2); X (3,3) completes the bottom row.
    play(ep, [
      '<action> ( 3 , 1 ) </action>',
      '<action> ( 3 , 2 ) </action>',
      '<action> ( 3 , 3 ) </action>',
    ]);
    expect(ep.reveal()).toBe(
      'end . you ( 3 , 1 ) opponent ( 1 , 1 ) . you ( 3 , 2 ) opponent ( 1 , 2 ) . you ( 3 , 3 )',
    );
    // The next attempt reveals nothing until it is over, then only its own moves.
    ep.reset(1);
    play(ep, [
      '<action> ( 3 , 3 ) </action>',
      '<action> ( 3 , 2 ) </action>',
      '<action> ( 3 , 1 ) </action>',
    ]);
    expect(ep.reveal()).toBe(
      'end . you ( 3 , 3 ) opponent ( 1 , 1 ) . you ( 3 , 2 ) opponent ( 1 , 2 ) . you ( 3 , 1 )',
    );
  });

  it("a lost game, agent second: the opponent's opening comes first", () => {
    const ep = episode('second', 'compact');
    expect(ep.reset(0).info.board).toEqual(['O..', '...', '...']);
    // O opened (1,1); X (3,3), O (1,2); X (3,2), O (1,3) wins the top row.
    play(ep, ['<action> ( 3 , 3 ) </action>', '<action> ( 3 , 2 ) </action>']);
    expect(ep.reveal()).toBe(
      'end . opponent ( 1 , 1 ) . you ( 3 , 3 ) opponent ( 1 , 2 ) . you ( 3 , 2 ) opponent ( 1 , 3 )',
    );
    const verbose = episode('second', 'verbose');
    verbose.reset(0);
    play(verbose, ['<action>(3, 3)</action>', '<action>(3, 2)</action>']);
    expect(verbose.reveal()).toBe(
      "This attempt's moves: The opponent played (1, 1) first. You played (3, 3); the opponent played (1, 2). You played (3, 2); the opponent played (1, 3).",
    );
  });

  it('a drawn game in the verbose style: one sentence per turn, as the events read', () => {
    const order = [4, 1, 6, 5];
    const scripted: OpponentV1<TicTacToeState, TicTacToeAction> = {
      specificationVersion: 'v1',
      id: 'order',
      act: (s) => order.find((c) => ((s.x | s.o) & (1 << c)) === 0) ?? 0,
    };
    const ep = episode('first', 'verbose', scripted);
    ep.reset(0);
    play(
      ep,
      ['(1,1)', '(1,3)', '(3,2)', '(2,1)', '(3,3)'].map((m) => `<action>${m}</action>`),
    );
    expect(ep.state.winner).toBeNull();
    expect(ep.reveal()).toBe(
      "This attempt's moves: You played (1, 1); the opponent played (2, 2). You played (1, 3); the opponent played (1, 2). You played (3, 2); the opponent played (3, 1). You played (2, 1); the opponent played (2, 3). You played (3, 3).",
    );
  });

  it('invalid turns keep their place as their event line; an attempt of invalid turns only reveals them', () => {
    const ep = episode('first', 'compact');
    ep.reset(0);
    play(ep, [
      '<action> ( 2 , 2 ) </action>',
      '<action> ( 2 , 2 ) </action>',
      'no move',
      '<action> ( 3 , 1 ) </action>',
      '<action> ( 3 , 2 ) </action>',
      '<action> ( 3 , 3 ) </action>',
    ]);
    expect(ep.reveal()).toBe(
      'end . you ( 2 , 2 ) opponent ( 1 , 1 ) . invalid . invalid . you ( 3 , 1 ) opponent ( 1 , 2 ) . you ( 3 , 2 ) opponent ( 1 , 3 )',
    );
    const verbose = episode('first', 'verbose');
    verbose.reset(0);
    const taken = [
      '<action>(2, 2)</action>',
      '<action>(2, 2)</action>',
      '<action>(3, 1)</action>',
      '<action>(3, 2)</action>',
    ];
    play(verbose, taken);
    expect(verbose.reveal()).toBe(
      "This attempt's moves: You played (2, 2); the opponent played (1, 1). invalid: (2, 2) is taken. You played (3, 1); the opponent played (1, 2). You played (3, 2); the opponent played (1, 3).",
    );
    // Truncated by the turn limit (8) with no move played: eight invalid turns, after the opening.
    const stalled = episode('second', 'compact');
    stalled.reset(0);
    play(stalled, Array(8).fill('nothing'));
    expect(stalled.reveal()).toBe(`end . opponent ( 1 , 1 ) . ${Array(8).fill('invalid').join(' . ')}`);
  });

  it('holds every event line in order and rebuilds the final board (property: both seats and styles)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom('first' as const, 'second' as const),
        fc.constantFrom('compact' as const, 'verbose' as const),
        (seed, seat, style) => {
          const { ep, events, final } = playRandomAttempt(
            createTicTacToe({ reveal: 'moves' }),
            seed,
            seat,
            style,
          );
          const line = ep.reveal() ?? '';
          let from = 0;
          for (const e of events) {
            const at = line.indexOf(e, from);
            expect(at).toBeGreaterThanOrEqual(from);
            from = at + e.length;
          }
          // Segments of the line (compact ` . `, verbose sentences) read back into the final board.
          const segments = style === 'compact' ? line.split(' . ') : line.split(/(?<=\.) /);
          expect(placeMoves('.........', segments)).toBe(final);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("'none' (the default) reveals nothing, and the option changes no observation, event or reward", () => {
    const moves = ['<action>(2, 2)</action>', '<action>(2, 2)</action>', '<action>(3, 1)</action>'];
    const run = (reveal: TicTacToeReveal) => {
      const ep = episode('second', 'verbose', randomLegalOpponent(ticTacToeGame(3), 'r'), reveal);
      const trace: unknown[] = [ep.reset(0)];
      for (let i = 0; !ep.done; i++) trace.push(ep.step(ep.parse(moves[i % moves.length]!)));
      return { trace, reveal: ep.reveal() };
    };
    const off = run('none');
    const on = run('moves');
    expect(off.reveal).toBeUndefined();
    expect(on.reveal).toMatch(/^This attempt's moves: The opponent played/);
    expect(on.trace).toEqual(off.trace);
    expect(createTicTacToe().options.reveal).toBe('none');
  });

  it('validates the option with a ConfigError naming it and the allowed values', () => {
    expect(() => createTicTacToe({ reveal: 'all' } as never)).toThrow(ConfigError);
    expect(() => createTicTacToe({ reveal: 'all' } as never)).toThrow(
      /'tictactoe\.reveal' \(got "all"\).*Allowed values: "none", "moves", "line"/,
    );
    expect(() => createTicTacToe({ reveal: true } as never)).toThrow(/tictactoe\.reveal/);
  });
});

describe("tictactoe reveal: 'line'", () => {
  it("the agent's legal moves in order, in both styles and seats; invalid turns leave no trace", () => {
    const ep = episode('first', 'compact', first, 'line');
    ep.reset(0);
    play(ep, [
      '<action> ( 3 , 1 ) </action>',
      '<action> ( 3 , 1 ) </action>',
      'no move',
      '<action> ( 3 , 2 ) </action>',
      '<action> ( 3 , 3 ) </action>',
    ]);
    expect(ep.reveal()).toBe('end you 31 32 33');
    ep.reset(1);
    play(ep, [
      '<action> ( 3 , 3 ) </action>',
      '<action> ( 3 , 2 ) </action>',
      '<action> ( 3 , 1 ) </action>',
    ]);
    expect(ep.reveal()).toBe('end you 33 32 31');
    const verbose = episode('second', 'verbose', first, 'line');
    verbose.reset(0);
    play(verbose, ['<action>(3, 3)</action>', '<action>(3, 2)</action>']);
    expect(verbose.reveal()).toBe('Your moves this attempt: (3, 3), (3, 2).');
    const stalled = episode('first', 'verbose', first, 'line');
    stalled.reset(0);
    play(stalled, Array(8).fill('nothing'));
    expect(stalled.reveal()).toBe('Your moves this attempt: none.');
  });

  it('replaying the line against a frozen opponent replays the attempt (property: any seed and opponent)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom('first' as const, 'second' as const),
        (seed, seat) => {
          const env = createFrozenTicTacToe();
          const ep = env.createEpisode({
            seed,
            seat,
            style: 'compact',
            rng: createRng(seed),
            opponent: randomLegalOpponent(ticTacToeGame(3), 'r'),
          });
          const moveRng = createRng(`moves/${seed}`);
          const trace = (answers?: string[]) => {
            const steps: unknown[] = [];
            let i = 0;
            while (!ep.done) {
              const legal = ep.state.x | ep.state.o;
              const empty = Array.from({ length: 9 }, (_, c) => c).filter((c) => (legal & (1 << c)) === 0);
              const cell = answers ? answers[i++]! : String(moveRng.pick(empty));
              const [r, c] = answers ? [0, 0] : [Math.floor(Number(cell) / 3) + 1, (Number(cell) % 3) + 1];
              steps.push(ep.step(ep.parse(answers ? cell : `<action> ( ${r} , ${c} ) </action>`)));
            }
            return steps;
          };
          ep.reset(0);
          const firstTrace = trace();
          const line = ep.reveal() ?? '';
          // `end you 22 13 …`: each word after the first two a cell, its row and column digits.
          const cells = line
            .split(' ')
            .slice(2)
            .map((rc) => `<action> ( ${rc[0]} , ${rc[1]} ) </action>`);
          ep.reset(1);
          expect(trace(cells)).toEqual(firstTrace);
          expect(ep.reveal()).toBe(line);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("tictactoe-frozen is its own env: the frozen opponent and the agent's line by default", () => {
    const env = createFrozenTicTacToe();
    expect(env.id).toBe('tictactoe-frozen');
    expect(env.options).toMatchObject({ replies: 'board', reveal: 'line', size: 3 });
    expect(createFrozenTicTacToe({ reveal: 'moves', replies: 'turn' }).options).toMatchObject({
      replies: 'turn',
      reveal: 'moves',
    });
    expect(() => createFrozenTicTacToe({ replies: 'always' } as never)).toThrow(/tictactoe-frozen\.replies/);
  });
});
