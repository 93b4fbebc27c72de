import { ConfigError, createRng, type OpponentV1 } from '@mage-rl/core';
import { firstLegalOpponent, GARBAGE_RESPONSES, randomLegalOpponent } from '@mage-rl/core/testing';
import { describeEnvConformance } from '@mage-rl/core/testing/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTicTacToe } from './env';
import { type TicTacToeAction, type TicTacToeState, ticTacToeFromRows, ticTacToeGame } from './game';
import { placeMoves, playRandomAttempt } from './random-attempt.test-helper';
import { parseTicTacToeAction } from './text';

for (const size of [3, 4]) {
  describeEnvConformance(`tictactoe ${size}x${size}`, () => createTicTacToe({ size }), {
    opponent: randomLegalOpponent(ticTacToeGame(size)),
  });
}

describeEnvConformance('tictactoe frozen replies', () => createTicTacToe({ replies: 'board' }), {
  opponent: randomLegalOpponent(ticTacToeGame(3)),
});

const first = firstLegalOpponent(ticTacToeGame(3));

function episode(
  seat: 'first' | 'second',
  opponent: OpponentV1<TicTacToeState, TicTacToeAction> = first,
  style: 'verbose' | 'compact' = 'verbose',
) {
  return createTicTacToe().createEpisode({ seed: 7, seat, style, rng: createRng(7), opponent });
}

describe('tictactoe env', () => {
  it('wins +10 with a line (agent first, opponent plays the first empty cell)', () => {
    const ep = episode('first');
    ep.reset(0);
    // X at (3,1); O takes (1,1). X (3,2); O (1,2). X (3,3) completes the bottom row.
    expect(ep.step(ep.parse('<action>(3,1)</action>'))).toMatchObject({
      valid: true,
      reward: 0,
      done: false,
    });
    expect(ep.step(ep.parse('<action>(3, 2)</action>')).event).toBe(
      'You played (3, 2); the opponent played (1, 2).',
    );
    const last = ep.step(ep.parse('<action>(3,3)</action>'));
    expect(last).toMatchObject({ reward: 10, done: true, outcome: { label: 'win', success: true } });
    expect(last.observation.info.board).toEqual(['OO.', '...', 'XXX']);
  });

  it('loses -10 when the opponent completes a line; the agent is drawn as X from the second seat', () => {
    const ep = episode('second');
    const obs = ep.reset(0);
    expect(obs.info.board).toEqual(['O..', '...', '...']);
    expect(obs.anchor).toBe('tictactoe:O../.../...');
    ep.step(ep.parse('<action>(3,3)</action>')); // O (1,2)
    const s = ep.step(ep.parse('<action>(3,2)</action>')); // O (1,3) wins the top row
    expect(s).toMatchObject({ reward: -10, done: true, outcome: { label: 'loss', success: false } });
  });

  it('draws with reward 0 on a full board', () => {
    // Opponent plays a fixed order; agent's moves fill the board without any line.
    const order = [4, 1, 6, 5];
    const scripted: OpponentV1<TicTacToeState, TicTacToeAction> = {
      specificationVersion: 'v1',
      id: 'order',
      act: (s) => order.find((c) => ((s.x | s.o) & (1 << c)) === 0) as number,
    };
    const ep = episode('first', scripted);
    ep.reset(0);
    // Final board X O X / X O O / O X X: no line for anybody.
    const moves = ['(1,1)', '(1,3)', '(3,2)', '(2,1)', '(3,3)'];
    let last = ep.step(ep.parse(`<action>${moves[0]}</action>`));
    for (const m of moves.slice(1)) {
      if (last.done) break;
      last = ep.step(ep.parse(`<action>${m}</action>`));
    }
    expect(last).toMatchObject({
      done: true,
      reward: 0,
      outcome: { label: 'draw', draw: true, success: false },
    });
    expect(last.observation.info.board).toEqual(['XOX', 'XOO', 'OXX']);
    expect(ep.turn).toBe(5);
  });

  it('invalid turns consume the turn, change nothing, and the limit truncates at 8', () => {
    const ep = episode('first');
    ep.reset(0);
    ep.step(ep.parse('<action>(2,2)</action>'));
    // A taken cell is readable text (the parse succeeds) that breaks the rules (the step refuses it).
    const again = ep.parse('<action>(2,2)</action>');
    expect(again.valid).toBe(true);
    const taken = ep.step(again);
    expect(taken).toMatchObject({ valid: false, reward: 0, done: false });
    expect(taken.event).toMatch(/\(2, 2\) is taken/);
    let last = taken;
    while (!ep.done) last = ep.step(ep.parse('nothing'));
    expect(ep.turn).toBe(8);
    expect(last.outcome).toMatchObject({ label: 'truncated', truncated: true });
    expect(ep.reset(1).info.board).toEqual(['...', '...', '...']);
  });

  it("truncation 'loss' scores the attempt's last turn −winReward; 'zero' scores it 0", () => {
    for (const [truncation, expected] of [
      ['zero', 0],
      ['loss', -10],
    ] as const) {
      const ep = createTicTacToe({ truncation }).createEpisode({
        seed: 7,
        seat: 'first',
        style: 'verbose',
        rng: createRng(7),
        opponent: first,
      });
      ep.reset(0);
      const rewards: number[] = [];
      while (!ep.done) rewards.push(ep.step(ep.parse('nothing')).reward);
      expect(rewards).toEqual([0, 0, 0, 0, 0, 0, 0, expected]);
    }
  });

  it('same task gives the same opening move whatever attempt; random opponents are seeded', () => {
    const rnd = randomLegalOpponent(ticTacToeGame(3));
    const a = episode('second', rnd);
    const b = episode('second', rnd);
    expect(a.reset(0).anchor).toBe(b.reset(2).anchor);
  });

  it('compact style uses a small space-separated vocabulary', () => {
    const ep = episode('first', first, 'compact');
    expect(ep.reset(0).text).toBe('board\n. . .\n. . .\n. . .');
    expect(createTicTacToe().formatAction(5, 'compact')).toBe('<action> ( 2 , 3 ) </action>');
    const s = ep.step(ep.parse('<action> ( 2 , 3 ) </action>'));
    expect(s.event).toBe('you ( 2 , 3 ) opponent ( 1 , 1 )');
    expect(ep.rules()).not.toMatch(/[A-Za-z]{15,}/);
  });

  it('validates options with ConfigError naming the path', () => {
    expect(() => createTicTacToe({ size: 6 })).toThrow(ConfigError);
    expect(() => createTicTacToe({ size: 6 })).toThrow(/tictactoe\.size.*at most 5/);
    expect(() => createTicTacToe({ colour: 'red' } as never)).toThrow(
      /known options: size, maxTurns, winReward, truncation, replies, reveal/,
    );
    expect(createTicTacToe({ size: 5 }).options).toEqual({
      size: 5,
      maxTurns: 8,
      winReward: 10,
      truncation: 'zero',
      replies: 'turn',
      reveal: 'none',
    });
  });
});

describe('tictactoe history lines', () => {
  it('hold every move in order, in both styles and seats (the board they rebuild is the final one)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom('first' as const, 'second' as const),
        fc.constantFrom('compact' as const, 'verbose' as const),
        (seed, seat, style) => {
          const { start, events, final } = playRandomAttempt(createTicTacToe(), seed, seat, style);
          expect(placeMoves(start, events)).toBe(final);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('tictactoe parser', () => {
  const empty = ticTacToeFromRows(['...', '...', '...']);
  it('takes the first action block and the first (row, col) in it', () => {
    expect(
      parseTicTacToeAction(
        'think (1,1) <action> move ( 2 ,3 ) then (1,1)</action> <action>(3,3)</action>',
        empty,
      ),
    ).toEqual({
      valid: true,
      action: 5,
      text: '(2, 3)',
    });
    expect(parseTicTacToeAction('<ACTION>(1,1)</ACTION>', empty)).toMatchObject({ valid: true, action: 0 });
    const rejected = [
      '<action>(0,1)</action>',
      '<action>(4,1)</action>',
      '<action>2,3</action>',
      '<action>(2,3)',
    ];
    for (const text of [...rejected, ...GARBAGE_RESPONSES]) {
      expect(parseTicTacToeAction(text, empty).valid).toBe(false);
    }
  });

  it('an over-long first pair is off the board, not skipped, and huge numbers never wrap to a cell', () => {
    expect(parseTicTacToeAction('<action>(1234567, 1) (2, 2)</action>', empty)).toEqual({
      valid: false,
      reason: '(1234567, 1) is off the 3×3 board',
    });
    expect(parseTicTacToeAction('<action>(2, 1234567) (2, 2)</action>', empty).valid).toBe(false);
    // 2^32 + 1 and 2^53 + 1 would wrap or round to small values under 32-bit or float arithmetic.
    expect(parseTicTacToeAction('<action>(4294967297, 1)</action>', empty).valid).toBe(false);
    expect(parseTicTacToeAction('<action>(1, 9007199254740993)</action>', empty).valid).toBe(false);
    const huge = '9'.repeat(380);
    const r = parseTicTacToeAction(`<action>(${huge}, 1) (1, 1)</action>`, empty);
    expect(r.valid).toBe(false);
    if (!r.valid) expect(r.reason.length).toBeLessThan(80);
    // Leading zeros are still digits: the value is what counts.
    expect(parseTicTacToeAction('<action>(0000002, 03)</action>', empty)).toMatchObject({
      valid: true,
      action: 5,
    });
    expect(parseTicTacToeAction('<action>(000, 1)</action>', empty).valid).toBe(false);
  });

  it('never throws and only accepts cells on the board, taken or not (property)', () => {
    const board = fc.array(fc.constantFrom('X', 'O', '.'), { minLength: 9, maxLength: 9 }).map((cells) => {
      const x = cells.reduce((m, c, i) => (c === 'X' ? m | (1 << i) : m), 0);
      const o = cells.reduce((m, c, i) => (c === 'O' ? m | (1 << i) : m), 0);
      return { size: 3, x, o, toMove: 0, winner: null } as TicTacToeState;
    });
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc
        .tuple(fc.string(), fc.integer({ min: -5, max: 12 }), fc.integer({ min: -5, max: 12 }), fc.string())
        .map(([a, r, c, b]) => `${a}<action>${b}(${r},${c})</action>`),
      fc.tuple(fc.string(), fc.string()).map(([a, b]) => `<action><action>${a}</action>${b}</action>`),
      fc.integer({ min: 0, max: 200_000 }).map((n) => `<action>${'('.repeat(n % 5000)}${'x'.repeat(n)}`),
    );
    fc.assert(
      fc.property(text, board, (t, s) => {
        const r = parseTicTacToeAction(t, s);
        if (r.valid) {
          expect(r.action).toBeGreaterThanOrEqual(0);
          expect(r.action).toBeLessThan(9);
        } else {
          expect(typeof r.reason).toBe('string');
        }
      }),
    );
  });
});

describe("tictactoe replies: 'board' (a frozen opponent)", () => {
  const random = randomLegalOpponent(ticTacToeGame(3));

  /** The events of three attempts in which the agent plays the first empty cell of `order` every turn. */
  function attempts(
    seed: number,
    replies: 'turn' | 'board',
    seat: 'first' | 'second',
    order: readonly number[],
  ) {
    const ep = createTicTacToe({ replies }).createEpisode({
      seed,
      seat,
      style: 'compact',
      rng: createRng(seed),
      opponent: random,
    });
    return [0, 1, 2].map((attempt) => {
      ep.reset(attempt);
      const events: string[] = [];
      while (!ep.done) {
        const board = ep.state;
        const cell = order.find((c) => ((board.x | board.o) & (1 << c)) === 0) ?? 0;
        events.push(ep.step({ valid: true, action: cell, text: '' }).event);
      }
      return events.join(' | ');
    });
  }

  it('answers the same board the same way in every attempt of a meta-episode; per turn it may not', () => {
    const orders = [
      [4, 0, 8, 2, 6, 1, 3, 5, 7],
      [0, 1, 2, 3, 4, 5, 6, 7, 8],
    ];
    let differ = 0;
    for (let seed = 0; seed < 20; seed++) {
      for (const seat of ['first', 'second'] as const) {
        for (const order of orders) {
          const frozen = attempts(seed, 'board', seat, order);
          expect(new Set(frozen).size).toBe(1);
          if (new Set(attempts(seed, 'turn', seat, order)).size > 1) differ++;
        }
      }
    }
    expect(differ).toBeGreaterThan(10);
  });

  it('keys the reply by the board alone: the attempt does not matter, the task seed does', () => {
    const replyAfter = (seed: number, attempt: number, replies: 'turn' | 'board') => {
      const ep = createTicTacToe({ replies }).createEpisode({
        seed,
        seat: 'first',
        style: 'compact',
        rng: createRng(seed),
        opponent: {
          specificationVersion: 'v1',
          id: 'answers-by-rng',
          // Any empty cell, by the stream's draw alone: equal replies mean equal draws.
          act: (state, { rng }) => {
            const empty = [...Array(9).keys()].filter((c) => ((state.x | state.o) & (1 << c)) === 0);
            return empty[rng.int(empty.length)]!;
          },
        },
      });
      ep.reset(attempt);
      return ep.step({ valid: true, action: 4, text: '' }).event;
    };
    const seeds = [...Array(12).keys()];
    const frozen = seeds.map((s) => replyAfter(s, 0, 'board'));
    expect(seeds.map((s) => replyAfter(s, 2, 'board'))).toEqual(frozen);
    expect(new Set(frozen).size).toBeGreaterThan(1);
    const perTurn = seeds.map((s) => replyAfter(s, 0, 'turn'));
    expect(seeds.map((s) => replyAfter(s, 2, 'turn'))).not.toEqual(perTurn);
  });
});
