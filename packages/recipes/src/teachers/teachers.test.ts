import {
  createRng,
  type EnvV1,
  type MetaEpisodeBatchRecord,
  type PromptStyle,
  runMetaEpisodes,
} from '@mage-rl/core';
import { createKuhnPoker, KUHN_INITIAL_STATE, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { createSokoban, generateRoom, isSolved, tryMove } from '@mage-rl/envs/sokoban';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { createOpponent, exploitability } from '@mage-rl/opponents';
import { createMemory } from '@mage-rl/reflection';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTeacher } from './create-teacher';
import { kuhnEquilibriumStrategy, kuhnTeacherAction } from './kuhn-teacher';
import { sokobanTeacherMoves } from './sokoban-teacher';
import { completingCells, ticTacToeTeacherMove } from './tictactoe-teacher';

async function play<S, A>(
  env: EnvV1<S, A>,
  style: PromptStyle,
  seed: number,
  opponents: readonly string[] | null,
): Promise<MetaEpisodeBatchRecord> {
  return runMetaEpisodes({
    env,
    policy: createTeacher(env, { style }),
    memory: createMemory({ mode: 'reflection' }),
    ...(opponents ? { opponents, makeOpponent: (id: string) => createOpponent(env.id, id) as never } : {}),
    groups: opponents ? opponents.length : 2,
    groupSize: 2,
    attempts: 2,
    earlyStop: false,
    seats: { mixed: 0.5 },
    style,
    seed,
  });
}

const styleArb = fc.constantFrom<PromptStyle>('compact', 'verbose');

/** Checks `property` for `numRuns` random seeds, each in a random prompt style. */
function forAnySeedAndStyle(numRuns: number, property: (seed: number, style: PromptStyle) => Promise<void>) {
  return fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 1e6 }), styleArb, property), { numRuns });
}

describe('teachers play legal, parseable actions', () => {
  it('tictactoe, any seed, both styles and seats', async () => {
    const env = createTicTacToe();
    await forAnySeedAndStyle(15, async (seed, style) => {
      const batch = await play(env, style, seed, ['random', 'pattern-centre-first', 'mcts-10', 'minimax']);
      expect(batch.rows.length).toBeGreaterThan(0);
      expect(batch.rows.every((r) => r.valid)).toBe(true);
    });
  });

  it('kuhn-poker, any seed, both styles and seats', async () => {
    const env = createKuhnPoker();
    await forAnySeedAndStyle(20, async (seed, style) => {
      const batch = await play(env, style, seed, ['conservative', 'aggressive', 'intermediate', 'cfr']);
      expect(batch.rows.every((r) => r.valid)).toBe(true);
    });
  });

  it('sokoban, any seed, both styles', async () => {
    const env = createSokoban();
    await forAnySeedAndStyle(6, async (seed, style) => {
      const batch = await play(env, style, seed, null);
      expect(batch.rows.every((r) => r.valid)).toBe(true);
      for (const r of batch.rows.filter((row) => row.phase === 'play')) {
        const body = /<action>(.*)<\/action>/.exec(r.responseText)?.[1] ?? '';
        const moves = body.split(',').length;
        expect(moves).toBeGreaterThanOrEqual(1);
        expect(moves).toBeLessThanOrEqual(3);
      }
    });
  });

  it('answers exactly in the env action format', async () => {
    const ttt = await play(createTicTacToe(), 'compact', 1, ['random']);
    const row = ttt.rows.find((r) => r.phase === 'play');
    expect(row?.responseText).toMatch(/^<action> \( [1-3] , [1-3] \) <\/action>$/);
    const kuhn = await play(createKuhnPoker(), 'verbose', 1, ['random']);
    expect(kuhn.rows.find((r) => r.phase === 'play')?.responseText).toMatch(/^<action>(PASS|BET)<\/action>$/);
  });

  it('is deterministic given the run seed', async () => {
    const a = await play(createTicTacToe(), 'compact', 9, ['random', 'mcts-10']);
    const b = await play(createTicTacToe(), 'compact', 9, ['random', 'mcts-10']);
    expect(a.rows.map((r) => r.responseText)).toEqual(b.rows.map((r) => r.responseText));
  });
});

/** A random position reached by alternating random moves that has no winner yet and an empty cell. */
const boardArb = fc
  .record({
    seed: fc.integer({ min: 0, max: 1e9 }),
    moves: fc.integer({ min: 0, max: 8 }),
    size: fc.constantFrom(3, 4),
  })
  .map(({ seed, moves, size }) => {
    const rng = createRng(seed);
    const cells = Array.from({ length: size * size }, () => '.');
    const rows = () =>
      Array.from({ length: size }, (_, r) => cells.slice(r * size, r * size + size).join(''));
    for (let i = 0; i < moves; i++) {
      const empty = cells.flatMap((c, j) => (c === '.' ? [j] : []));
      const cell = rng.pick(empty);
      cells[cell] = i % 2 === 0 ? 'O' : 'X';
      const line = completingCells(rows(), 'X').length === 0 && completingCells(rows(), 'O').length === 0;
      // Stop before anyone could have a full line: keep positions that are still in play.
      if (!line && i >= moves - 1) break;
    }
    return rows();
  })
  .filter((rows) => {
    const n = rows.length;
    const flat = rows.join('');
    if (!flat.includes('.')) return false;
    // No finished line for either side.
    const lines: number[][] = [];
    for (let r = 0; r < n; r++) lines.push(Array.from({ length: n }, (_, c) => r * n + c));
    for (let c = 0; c < n; c++) lines.push(Array.from({ length: n }, (_, r) => r * n + c));
    lines.push(Array.from({ length: n }, (_, i) => i * n + i));
    lines.push(Array.from({ length: n }, (_, i) => i * n + n - 1 - i));
    return !lines.some((l) => l.every((c) => flat[c] === 'X') || l.every((c) => flat[c] === 'O'));
  });

describe('tictactoe teacher rules', () => {
  it('never misses a win, never misses a needed block, otherwise plays an empty cell', () => {
    fc.assert(
      fc.property(boardArb, fc.integer(), (board, seed) => {
        const move = ticTacToeTeacherMove(board, createRng(seed));
        expect(move).not.toBeNull();
        const cell = (move as { cell: number }).cell;
        expect(board.join('')[cell]).toBe('.');
        const wins = completingCells(board, 'X');
        const blocks = completingCells(board, 'O');
        if (wins.length > 0) expect(wins).toContain(cell);
        else if (blocks.length > 0) expect(blocks).toContain(cell);
      }),
      { numRuns: 500 },
    );
  });

  it('finds wins and blocks on hand-made boards', () => {
    const rng = createRng(1);
    expect(ticTacToeTeacherMove(['XX.', 'OO.', '...'], rng)).toEqual({ cell: 2, reason: 'win' });
    expect(ticTacToeTeacherMove(['X..', 'OO.', 'X..'], rng)).toEqual({ cell: 5, reason: 'block' });
    expect(ticTacToeTeacherMove(['O..', '.X.', '..O'], rng)?.reason).toBe('random');
    expect(ticTacToeTeacherMove(['XOX', 'XOO', 'OXX'], rng)).toBeNull();
  });
});

describe('tictactoe teacher mistakes', () => {
  it('plays taken cells on about the asked fraction of turns, never on an empty board, and then goes on', async () => {
    const env = createTicTacToe();
    const batch = await runMetaEpisodes({
      env,
      policy: createTeacher(env, { style: 'compact', mistakes: 0.3 }),
      memory: createMemory({ mode: 'reflection' }),
      opponents: ['random'],
      makeOpponent: (id: string) => createOpponent(env.id, id) as never,
      groups: 8,
      groupSize: 4,
      attempts: 2,
      earlyStop: false,
      seats: 'first',
      style: 'compact',
      seed: 3,
    });
    const turns = batch.rows.filter((r) => r.phase === 'play');
    const invalid = turns.filter((r) => !r.valid);
    // Seat first: the opening turn sees an empty board and is never a mistake.
    expect(turns.filter((r) => r.turn === 0).every((r) => r.valid)).toBe(true);
    expect(invalid.length / turns.length).toBeGreaterThan(0.15);
    expect(invalid.length / turns.length).toBeLessThan(0.4);
    // A valid turn follows a mistake in the same attempt (the recovery the corpus teaches).
    const after = invalid.filter((r) =>
      turns.some((q) => q.slot === r.slot && q.attempt === r.attempt && q.turn === r.turn + 1 && q.valid),
    );
    expect(after.length).toBeGreaterThan(invalid.length / 2);
    // Without mistakes (the default) every turn is valid.
    expect((await play(env, 'compact', 3, ['random'])).rows.every((r) => r.valid)).toBe(true);
  });
});

describe('kuhn teacher', () => {
  it('samples from a near-equilibrium strategy', () => {
    const strategy = kuhnEquilibriumStrategy();
    const gap = exploitability({ game: kuhnGame, root: KUHN_INITIAL_STATE, strategy });
    expect(gap).toBeLessThan(0.003);
    expect(kuhnEquilibriumStrategy()).toBe(strategy); // computed once
  });

  it('follows the strategy frequencies and always bets/calls a King facing a bet', () => {
    const strategy = kuhnEquilibriumStrategy();
    const rng = createRng('kuhn-freq');
    let bets = 0;
    const n = 4000;
    for (let i = 0; i < n; i++) if (kuhnTeacherAction(strategy, 'J', '', 0, rng) === 'BET') bets++;
    const p = strategy['J:']?.BET ?? 0;
    expect(Math.abs(bets / n - p)).toBeLessThan(0.03);
    for (let i = 0; i < 50; i++) expect(kuhnTeacherAction(strategy, 'K', 'b', 1, rng)).toBe('BET');
    for (let i = 0; i < 50; i++) expect(kuhnTeacherAction(strategy, 'J', 'pb', 0, rng)).toBe('PASS');
  });
});

describe('sokoban teacher', () => {
  it('plays solver moves: with no noise it solves every room within the turn limit', () => {
    for (let seed = 0; seed < 20; seed++) {
      let state = generateRoom(createRng(seed), { width: 6, height: 6, boxes: 2 }).state;
      const rng = createRng(`sok/${seed}`);
      let turns = 0;
      while (!isSolved(state) && turns < 7) {
        const moves = sokobanTeacherMoves(state, rng, { movesPerTurn: 3, noise: 0, shortTurns: 0 });
        for (const m of moves) state = (tryMove(state, m) as { state: typeof state }).state;
        turns++;
      }
      expect(isSolved(state)).toBe(true);
    }
  });

  it('with noise, every move is still legal in order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (seed, noise) => {
          const state = generateRoom(createRng(seed), { width: 6, height: 6, boxes: 2 }).state;
          const moves = sokobanTeacherMoves(state, createRng(seed + 1), {
            movesPerTurn: 3,
            noise,
            shortTurns: 0.5,
          });
          expect(moves.length).toBeGreaterThanOrEqual(1);
          expect(moves.length).toBeLessThanOrEqual(3);
          let s = state;
          for (const m of moves) {
            const r = tryMove(s, m);
            expect(r).not.toBeNull();
            s = (r as { state: typeof s }).state;
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
