/**
 * Acceptance (issue 6): a scripted adaptive policy improves from attempt 1 to attempt 3 against the
 * preferred-pattern opponents; a scripted non-adaptive policy stays flat. Nim first (core's reference
 * env), then Tic-Tac-Toe.
 */

import { evaluate, type OpponentV1, type PolicyRequestV1 } from '@mage-rl/core';
import { createNimEnv, type NimAction, type NimState, scriptedPolicy } from '@mage-rl/core/testing';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { createOpponent, PATTERN_NAMES } from '@mage-rl/opponents';
import { createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { adaptivePolicy, fixedLinePolicy } from './tictactoe-scripted';

const PATTERNS = PATTERN_NAMES.map((p) => `pattern-${p}`);

describe('adaptive vs non-adaptive on Tic-Tac-Toe against pattern opponents', () => {
  const run = async (policy: ReturnType<typeof adaptivePolicy>, context: 'turn' | 'transcript' = 'turn') =>
    evaluate({
      env: createTicTacToe(),
      policy,
      memory: createMemory({ mode: 'reflection' }),
      opponents: PATTERNS,
      makeOpponent: (id) => createOpponent('tictactoe', id),
      episodes: 4,
      seats: { mixed: 0.5 },
      seed: 1,
      context,
    });

  it('the adaptive policy raises pass@k from attempt 1 to attempt 3; the fixed line stays flat', async () => {
    const adaptive = await run(adaptivePolicy());
    const fixed = await run(fixedLinePolicy());
    const a = adaptive.metrics.overall.perAttempt;
    const f = fixed.metrics.overall.perAttempt;
    // Same line in attempt 1: same first-attempt success.
    expect(a[0]?.passAtK.rate).toBe(f[0]?.passAtK.rate);
    expect(a[0]?.passAtK.rate).toBeLessThan(0.75);
    // Adaptive: rises, and beats every pattern by attempt 3.
    expect(a[2]?.passAtK.rate).toBeGreaterThan((a[0]?.passAtK.rate ?? 1) + 0.25);
    expect(a[2]?.passAtK.rate).toBe(1);
    expect(a[1]?.success.rate).toBeGreaterThan(0.5);
    // Fixed line: no later attempt wins what the first did not (flat pass@k, zero conditional success).
    expect(f.map((x) => x.passAtK.rate)).toEqual([
      f[0]?.passAtK.rate,
      f[0]?.passAtK.rate,
      f[0]?.passAtK.rate,
    ]);
    expect(f[1]?.success.successes).toBe(0);
    expect(f[2]?.success.successes).toBe(0);
    // Per opponent too: every pattern the fixed line loses to is beaten by the adaptive policy.
    for (const id of PATTERNS) {
      expect(adaptive.metrics.byOpponent[id]?.perAttempt[2]?.passAtK.rate).toBe(1);
    }
  });

  it('gives identical actions in the transcript layout', async () => {
    const turn = await run(adaptivePolicy(), 'turn');
    const transcript = await run(adaptivePolicy(), 'transcript');
    const strip = (rows: typeof turn.batch.rows) => rows.map(({ promptText: _, ...r }) => r);
    expect(strip(transcript.batch.rows)).toEqual(strip(turn.batch.rows));
    expect(transcript.metrics).toEqual(turn.metrics);
  });
});

describe('adaptive vs non-adaptive on Nim', () => {
  // Pattern opponents for Nim: always take one stone, or always take two when possible.
  const opponent = (id: string): OpponentV1<NimState, NimAction> => ({
    specificationVersion: 'v1',
    id,
    act: (s) => (id === 'take-two' && s.stones >= 2 ? 2 : 1),
  });
  const lastPile = (r: PolicyRequestV1) =>
    Number(/(\d+) stones left\.\s*$/.exec(r.messages.at(-1)?.content ?? '')?.[1] ?? 1);
  /** With a model of the opponent, take the move that wins against it (exhaustive search). */
  const wins = (pile: number, opp: number): NimAction | null => {
    for (const take of [1, 2] as const) {
      if (take > pile) continue;
      if (take === pile) return take;
      const left = pile - take - Math.min(opp, pile - take);
      if (left === 0) continue;
      if (wins(left, opp) !== null) return take;
    }
    return null;
  };
  const adaptive = () =>
    scriptedPolicy((r) => {
      const text = r.messages.map((m) => m.content).join('\n');
      if (r.phase === 'reflect') {
        const replies = [...text.matchAll(/opponent took (\d)/g)].map((m) => Number(m[1]));
        return `<remark>opponent takes ${Math.max(...replies, 1)}</remark>`;
      }
      const noted = /opponent takes (\d)/.exec(text);
      const move = noted ? wins(lastPile(r), Number(noted[1])) : null;
      return `<action>${move ?? 1}</action>`;
    });
  const fixed = () =>
    scriptedPolicy((r) => (r.phase === 'reflect' ? '<remark>same again</remark>' : '<action>1</action>'));
  const run = (policy: ReturnType<typeof fixed>) =>
    evaluate({
      env: createNimEnv({ minStones: 4, maxStones: 12, maxTurns: 8 }),
      policy,
      memory: createMemory(),
      opponents: ['take-one', 'take-two'],
      makeOpponent: opponent,
      episodes: 12,
      seed: 2,
    });

  it('rises with adaptation and stays flat without', async () => {
    const a = (await run(adaptive())).metrics.overall.perAttempt.map((x) => x.passAtK.rate);
    const f = (await run(fixed())).metrics.overall.perAttempt.map((x) => x.passAtK.rate);
    expect(a[0]).toBe(f[0]);
    expect(a[2]).toBeGreaterThan((a[0] ?? 1) + 0.2);
    expect(f[2]).toBe(f[0]);
  });
});
