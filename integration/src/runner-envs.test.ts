/**
 * The runner on the three real envs (issue 6 acceptance): early stop, restart identity, reflection
 * placement and anchor contents, pinned on Tic-Tac-Toe, Kuhn Poker and Sokoban; rows fed through the
 * gigpo package's `computeAdvantages`.
 */

import {
  createRng,
  type EnvV1,
  type MetaEpisodeBatchRecord,
  type OpponentV1,
  type PolicyV1,
  playAnchor,
  type RowRecord,
  runMetaEpisodes,
} from '@mage-rl/core';
import { scriptedPolicy } from '@mage-rl/core/testing';
import { createKuhnPoker } from '@mage-rl/envs/kuhn-poker';
import { createSokoban, parseSokoban, solveSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { computeAdvantages, rowsToAdvantageInputs } from '@mage-rl/gigpo';
import { createOpponent } from '@mage-rl/opponents';
import { createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { fixedLinePolicy } from './tictactoe-scripted';

const REMARK = '<remark>try something else</remark>';
const lastUser = (r: { messages: readonly { content: string }[] }) => r.messages.at(-1)?.content ?? '';

/** Solves the last room drawn in the prompt with the BFS solver and plays its first moves. */
function sokobanSolver(): PolicyV1 {
  return scriptedPolicy((r) => {
    if (r.phase === 'reflect') return REMARK;
    const lines = lastUser(r).split('\n');
    const rows: string[] = [];
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = lines[i] as string;
      if (/^[#_OX√PS]+$/u.test(l)) rows.unshift(l);
      else if (rows.length > 0) break;
    }
    const solution = rows.length >= 3 ? solveSokoban(parseSokoban(rows)).solution : null;
    return `<action>${(solution ?? ['up']).slice(0, 3).join(', ')}</action>`;
  });
}

interface EnvCase {
  readonly name: string;
  // biome-ignore lint/suspicious/noExplicitAny: each case pairs an env with opponents of its own state type
  readonly env: EnvV1<any, any>;
  readonly opponents: readonly string[];
  // biome-ignore lint/suspicious/noExplicitAny: see above
  readonly makeOpponent?: (id: string) => OpponentV1<any, any>;
  /** A deterministic policy that wins some tasks and loses others. */
  readonly policy: () => PolicyV1;
  readonly anchorPrefix: string;
}

const CASES: readonly EnvCase[] = [
  {
    name: 'tictactoe',
    env: createTicTacToe(),
    opponents: ['pattern-corners-first', 'pattern-centre-first', 'pattern-main-diagonal-first'],
    makeOpponent: (id) => createOpponent('tictactoe', id),
    policy: fixedLinePolicy,
    anchorPrefix: 'tictactoe:',
  },
  {
    name: 'kuhn-poker',
    env: createKuhnPoker(),
    opponents: ['conservative', 'aggressive'],
    makeOpponent: (id) => createOpponent('kuhn-poker', id),
    policy: () =>
      scriptedPolicy((r) =>
        r.phase === 'reflect'
          ? REMARK
          : /Your card: (King|Queen)/.test(lastUser(r))
            ? '<action>BET</action>'
            : '<action>PASS</action>',
      ),
    anchorPrefix: 'kuhn-poker:',
  },
  {
    name: 'sokoban',
    env: createSokoban(),
    opponents: [],
    // Solves about half of the rooms (by a hash of the room text), wanders in the others: a mix of early
    // stops and full meta-episodes.
    policy: () => {
      const solver = sokobanSolver();
      const wander = scriptedPolicy((r) => (r.phase === 'reflect' ? REMARK : '<action>up, down</action>'));
      const solvable = (text: string) =>
        (([...text].reduce((h, ch) => Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0, 2166136261) >>> 16) &
          1) ===
        0;
      return {
        specificationVersion: 'v1',
        id: 'sokoban-mixed',
        generate: async (requests, options) => {
          const out = [];
          for (const r of requests) {
            // The first room drawn in the conversation is the initial state, in both layouts.
            const text = r.messages.map((m) => m.content).join('\n');
            const room = /(?:^[#_OX√PS]+$\n?)+/mu.exec(text)?.[0] ?? '';
            out.push(...(await (solvable(room) ? solver : wander).generate([r], options)));
          }
          return out;
        },
      };
    },
    anchorPrefix: 'sokoban:',
  },
];

const run = (c: EnvCase, extra: { earlyStop?: boolean; context?: 'turn' | 'transcript' } = {}) =>
  runMetaEpisodes({
    env: c.env,
    policy: c.policy(),
    memory: createMemory({ mode: 'reflection' }),
    ...(c.opponents.length > 0 ? { opponents: c.opponents } : {}),
    ...(c.makeOpponent ? { makeOpponent: c.makeOpponent } : {}),
    groups: 6,
    groupSize: 2,
    seats: { mixed: 0.5 },
    seed: 17,
    ...extra,
  });

const bySlot = (batch: MetaEpisodeBatchRecord, slot: string): RowRecord[] =>
  batch.rows.filter((r) => r.slot === slot);

describe.each(CASES)('runner on $name', (c) => {
  it('stops a slot early after a success, and plays all K attempts when earlyStop is off', async () => {
    const batch = await run(c);
    let early = 0;
    for (const slot of batch.slots) {
      const won = slot.attempts.findIndex((a) => a.outcome.success);
      expect(slot.attempts).toHaveLength(won >= 0 ? won + 1 : 3);
      if (won >= 0 && won < 2) early++;
      const rows = bySlot(batch, slot.slot);
      expect(Math.max(...rows.map((r) => r.attempt))).toBe(slot.attempts.length - 1);
    }
    expect(early).toBeGreaterThan(0);
    expect(early).toBeLessThan(batch.slots.length);
    const full = await run(c, { earlyStop: false });
    expect(full.slots.every((s) => s.attempts.length === 3)).toBe(true);
  });

  it('restarts every attempt from the identical initial state', async () => {
    const batch = await run(c, { earlyStop: false });
    for (const slot of batch.slots) {
      const rows = bySlot(batch, slot.slot).filter((r) => r.phase === 'play');
      const firsts = [0, 1, 2].map((k) => rows.find((r) => r.attempt === k && r.turn === 0) as RowRecord);
      expect(new Set(firsts.map((r) => r.anchor)).size).toBe(1);
      const initial = (r: RowRecord) => r.promptText.split('Initial state:\n')[1]?.split('\n\n')[0];
      expect(new Set(firsts.map(initial)).size).toBe(1);
    }
  });

  it('places exactly one reflect turn between consecutive attempts', async () => {
    const batch = await run(c);
    for (const slot of batch.slots) {
      const rows = bySlot(batch, slot.slot);
      const runs = rows.map((r) => `${r.phase}${r.attempt}`).filter((p, i, all) => p !== all[i - 1]);
      expect(runs).toEqual(
        slot.attempts.flatMap((a) =>
          a.attempt === 0 ? ['play0'] : [`reflect${a.attempt}`, `play${a.attempt}`],
        ),
      );
      for (const r of rows.filter((x) => x.phase === 'reflect')) {
        expect(r).toMatchObject({ turn: -1, reward: 0, valid: true });
        expect(r.promptText).toContain(`Attempt ${r.attempt} of 3 has finished.`);
        expect(r.promptText.trimEnd().endsWith('<remark>...</remark>.')).toBe(true);
      }
      const notes = rows
        .filter((x) => x.phase === 'reflect')
        .map((x) => /<remark>(.*)<\/remark>/.exec(x.responseText)?.[1]);
      expect(slot.attempts.slice(0, -1).map((a) => a.reflection)).toEqual(notes);
      expect(slot.attempts.at(-1)?.reflection).toBeUndefined();
    }
  });

  it('anchors every play row on the state it acted from plus the opponent id (replayed through the env)', async () => {
    const batch = await run(c);
    for (const slot of batch.slots) {
      const opponent =
        slot.task.opponentId !== null && c.makeOpponent ? c.makeOpponent(slot.task.opponentId) : undefined;
      const episode = c.env.createEpisode({
        seed: slot.task.seed,
        seat: slot.task.seat,
        style: 'verbose',
        rng: createRng(slot.task.seed),
        ...(opponent ? { opponent } : {}),
      });
      let observation = episode.reset(0);
      let attempt = 0;
      for (const row of bySlot(batch, slot.slot)) {
        if (row.phase === 'reflect') {
          expect(row.anchor).toBe(`reflection|${slot.task.opponentId ?? 'none'}`);
          continue;
        }
        if (row.attempt !== attempt) {
          attempt = row.attempt;
          observation = episode.reset(attempt);
        }
        expect(row.anchor).toBe(playAnchor(observation.anchor, slot.task.opponentId ?? undefined));
        expect(row.anchor.startsWith(c.anchorPrefix)).toBe(true);
        expect(row.anchor.endsWith(`|${slot.task.opponentId ?? 'none'}`)).toBe(true);
        expect(row.promptText.endsWith(observation.text)).toBe(true);
        const step = episode.step(episode.parse(row.responseText));
        expect(step.reward).toBe(row.reward);
        expect(step.valid).toBe(row.valid);
        observation = step.observation;
      }
    }
  });

  it('gives the same actions in the transcript layout', async () => {
    const turn = await run(c);
    const transcript = await run(c, { context: 'transcript' });
    const strip = (rows: readonly RowRecord[]) => rows.map(({ promptText: _, ...r }) => r);
    expect(strip(transcript.rows)).toEqual(strip(turn.rows));
  });

  it("feeds its rows through gigpo's computeAdvantages", async () => {
    const batch = await run(c);
    const inputs = rowsToAdvantageInputs(batch.rows);
    const out = computeAdvantages(inputs);
    expect(out).toHaveLength(batch.rows.length);
    expect(out.every((o) => Number.isFinite(o.advantage) && Number.isFinite(o.return))).toBe(true);
    // Episode advantages are centred inside every group (row-weighted mean baseline).
    for (const group of batch.groups) {
      const idx = batch.rows.flatMap((r, i) => (r.group === group.group ? [i] : []));
      const sum = idx.reduce((s, i) => s + (out[i]?.episodeAdvantage ?? 0), 0);
      expect(Math.abs(sum)).toBeLessThan(1e-6 * Math.max(1, idx.length));
    }
  });
});
