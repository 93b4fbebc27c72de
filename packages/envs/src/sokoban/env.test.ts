import { ConfigError, createRng } from '@mage-rl/core';
import { GARBAGE_RESPONSES } from '@mage-rl/core/testing';
import { describeEnvConformance } from '@mage-rl/core/testing/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSokoban, type SokobanOptions } from './env';
import { sokobanGame } from './game';
import { generateRoom, RoomGenerationError } from './generator';
import { boxesOnTargets, isSolved, renderSokobanRows, type SokobanState, sokobanStateKey } from './room';
import { isDeadlocked, solveSokoban } from './solver';
import { parseSokobanAction } from './text';

describeEnvConformance('sokoban 6x6 2 boxes', () => createSokoban());
describeEnvConformance('sokoban 7x7 3 boxes', () => createSokoban({ width: 7, height: 7, boxes: 3 }), {
  seeds: [1, 2],
});

function episode(seed: number, options: SokobanOptions = {}, style: 'verbose' | 'compact' = 'verbose') {
  return createSokoban(options).createEpisode({
    seed,
    seat: 'first',
    style,
    rng: createRng(`sokoban/${seed}`),
  });
}

function chunks<T>(items: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}

describe('sokoban generator', () => {
  it('makes rooms with walls around, the right box count and an optimal length in range', () => {
    for (const boxes of [1, 2, 3]) {
      for (let seed = 0; seed < 15; seed++) {
        const g = generateRoom(createRng(`gen/${boxes}/${seed}`), { boxes });
        const rows = renderSokobanRows(g.state);
        expect(rows[0]).toBe('######');
        expect(rows[5]).toBe('######');
        for (const r of rows) expect(r[0] === '#' && r[5] === '#').toBe(true);
        expect(g.state.boxes.length).toBe(boxes);
        expect(g.state.room.targetCells.length).toBe(boxes);
        expect(g.solution.length).toBeGreaterThanOrEqual(5);
        expect(g.solution.length).toBeLessThanOrEqual(21);
        expect(solveSokoban(g.state).solution?.length).toBe(g.solution.length);
        expect(isSolved(sokobanGame.apply(g.state, g.solution))).toBe(true);
      }
    }
  });

  it('is deterministic given the rng and honours the size and range options', () => {
    const a = generateRoom(createRng('same'), {
      width: 8,
      height: 7,
      minSolutionLength: 10,
      maxSolutionLength: 30,
    });
    const b = generateRoom(createRng('same'), {
      width: 8,
      height: 7,
      minSolutionLength: 10,
      maxSolutionLength: 30,
    });
    expect(renderSokobanRows(a.state)).toEqual(renderSokobanRows(b.state));
    expect(a.state.room.width).toBe(8);
    expect(a.state.room.height).toBe(7);
    expect(a.solution.length).toBeGreaterThanOrEqual(10);
  });

  it('gives up after bounded retries with a RoomGenerationError', () => {
    const fail = () =>
      generateRoom(createRng(1), {
        width: 4,
        height: 4,
        boxes: 2,
        minSolutionLength: 40,
        maxSolutionLength: 50,
        maxRetries: 5,
      });
    expect(fail).toThrow(RoomGenerationError);
    expect(fail).toThrow(/after 5 tries/);
  });
});

describe('sokoban env', () => {
  it('same task seed gives the same room; different seeds give different rooms', () => {
    const rooms = [1, 2, 3, 4].map((seed) => episode(seed).initialText());
    expect(episode(1).initialText()).toBe(rooms[0]);
    expect(new Set(rooms).size).toBe(4);
  });

  it('playing the optimal solution 3 moves a turn solves the room with the documented rewards', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const ep = episode(seed);
      ep.reset(0);
      const start = ep.state;
      const solution = solveSokoban(start).solution ?? [];
      let total = 0;
      let last: ReturnType<typeof ep.step> | undefined;
      for (const turn of chunks(solution, 3)) {
        last = ep.step(ep.parse(`<action>${turn.join(', ')}</action>`));
        expect(last.valid).toBe(true);
        total += last.reward;
      }
      const expected = -0.1 * solution.length + (start.boxes.length - boxesOnTargets(start)) + 10;
      expect(total).toBeCloseTo(expected, 9);
      expect(last).toMatchObject({ done: true, outcome: { label: 'solved', success: true } });
      expect(ep.turn).toBe(Math.ceil(solution.length / 3));
    }
  });

  it('ends the attempt as a deadlock once the room cannot be solved any more', () => {
    const ep = episode(3);
    ep.reset(0);
    // Shortest move sequence from the start to a deadlocked state (BFS over single moves).
    const start = ep.state;
    const queue: [SokobanState, string[]][] = [[start, []]];
    const seen = new Set([sokobanStateKey(start)]);
    let path: string[] | undefined;
    while (queue.length > 0 && !path) {
      const [s, moves] = queue.shift() as [SokobanState, string[]];
      for (const a of sokobanGame.legalActions(s)) {
        const next = sokobanGame.apply(s, a);
        if (seen.has(sokobanStateKey(next))) continue;
        seen.add(sokobanStateKey(next));
        if (isDeadlocked(next)) {
          path = [...moves, ...a];
          break;
        }
        queue.push([next, [...moves, ...a]]);
      }
    }
    expect(path).toBeDefined();
    let last: ReturnType<typeof ep.step> | undefined;
    for (const turn of chunks(path ?? [], 3)) last = ep.step(ep.parse(`<action>${turn.join(',')}</action>`));
    expect(last).toMatchObject({ done: true, outcome: { label: 'deadlock', success: false } });
    expect(ep.reset(1).text).toBe(ep.initialText());
  });

  it('turn limit 7: blocked or unreadable moves waste turns and leave the state alone', () => {
    const ep = episode(5);
    const first = ep.reset(0);
    const legal = sokobanGame.legalActions(ep.state).map((a) => a[0] as string);
    const blocked = ['up', 'down', 'left', 'right'].find((m) => !legal.includes(m)) as string;
    const s = ep.step(ep.parse(`<action>${blocked}</action>`));
    expect(s).toMatchObject({ valid: false, reward: 0, done: false });
    expect(s.event).toBe(`invalid: move 1 (${blocked}) is blocked`);
    expect(s.observation.anchor).toBe(first.anchor);
    let last = s;
    while (!ep.done) last = ep.step(ep.parse('<action>up, up, up, up</action>'));
    expect(ep.turn).toBe(7);
    expect(last.outcome).toMatchObject({ label: 'truncated', truncated: true });
  });

  it('a turn whose second move is blocked parses, is refused by the env and plays neither move', () => {
    const ep = episode(5);
    const first = ep.reset(0);
    // A possible first move after which some second move is blocked.
    const moves = ['up', 'down', 'left', 'right'] as const;
    let turn: [string, string] | undefined;
    for (const [a] of sokobanGame.legalActions(ep.state)) {
      const after = sokobanGame.apply(ep.state, [a!]);
      const legal = sokobanGame.legalActions(after).map((x) => x[0]);
      const b = moves.find((m) => !legal.includes(m));
      if (b && !isSolved(after)) {
        turn = [a!, b];
        break;
      }
    }
    expect(turn).toBeDefined();
    const [a, b] = turn ?? ['', ''];
    const parsed = ep.parse(`<action>${a}, ${b}</action>`);
    expect(parsed).toMatchObject({ valid: true, action: [a, b] });
    const s = ep.step(parsed);
    expect(s).toMatchObject({ valid: false, reward: 0, done: false });
    expect(s.event).toBe(`invalid: move 2 (${b}) is blocked`);
    expect(s.observation.anchor).toBe(first.anchor);
    expect(ep.turn).toBe(1);
  });

  it('compact style renders space-separated symbols', () => {
    const ep = episode(1, {}, 'compact');
    const text = ep.reset(0).text;
    const lines = text.split('\n');
    expect(lines[0]).toBe('room');
    expect(lines[1]).toBe('# # # # # #');
    for (const tok of text.split(/\s+/)) expect(['room', '#', '_', 'O', 'X', '√', 'P', 'S']).toContain(tok);
    expect(createSokoban().formatAction(['up', 'left'], 'compact')).toBe('<action> up , left </action>');
  });

  it('validates options', () => {
    expect(() => createSokoban({ boxes: 0 })).toThrow(ConfigError);
    expect(() => createSokoban({ minSolutionLength: 9, maxSolutionLength: 4 })).toThrow(
      /sokoban\.maxSolutionLength/,
    );
    expect(createSokoban().options).toMatchObject({
      width: 6,
      height: 6,
      boxes: 2,
      maxTurns: 7,
      movesPerTurn: 3,
    });
  });
});

describe('sokoban parser', () => {
  it('reads up to 3 comma-separated moves without looking at the room', () => {
    expect(parseSokobanAction('<action>right, right ,Right</action>')).toEqual({
      valid: true,
      action: ['right', 'right', 'right'],
      text: 'right, right, right',
    });
    expect(parseSokobanAction('<action>up</action>')).toMatchObject({ valid: true, action: ['up'] });
    // Whether a move is possible is the env's rule, so a move into a wall still parses.
    expect(parseSokobanAction('<action>down</action>')).toEqual({
      valid: true,
      action: ['down'],
      text: 'down',
    });
    expect(parseSokobanAction('<action>up,up,up,up</action>', 4)).toMatchObject({ valid: true });
    const rejected = ['<action>up,up,up,up</action>', '<action>up up</action>', '<action>up,</action>'];
    for (const text of [...rejected, ...GARBAGE_RESPONSES])
      expect(parseSokobanAction(text).valid).toBe(false);
  });

  it('never throws; accepted moves are 1 to 3 move words (property)', () => {
    const word = fc.constantFrom('up', 'down', 'left', 'right', 'UP', 'north', '', ' up ', 'right\n');
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .tuple(fc.string(), fc.array(word, { maxLength: 5 }), fc.string())
        .map(([a, ws, b]) => `${a}<action>${ws.join(',')}</action>${b}`),
      fc.string().map((a) => `<action><action>${a}</action></action>`),
      fc.nat({ max: 100_000 }).map((n) => `<action>${'up,'.repeat(n)}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        const r = parseSokobanAction(t);
        if (r.valid) {
          expect(r.action.length).toBeGreaterThan(0);
          expect(r.action.length).toBeLessThanOrEqual(3);
          for (const m of r.action) expect(['up', 'down', 'left', 'right']).toContain(m);
        } else expect(r.reason.length).toBeGreaterThan(0);
      }),
    );
  });
});
