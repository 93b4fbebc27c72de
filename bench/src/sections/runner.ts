/**
 * Runner overhead (issue 6): 64 slots × 3 attempts of Tic-Tac-Toe with a scripted policy and cheap
 * pattern/random opponents, so the time is the runner's (prompt building, lock-step batching, env steps,
 * records), not a model's or a search's. Target: one run under 1 s.
 */

import { computeMetrics, type PolicyV1, runMetaEpisodes } from '@mage-rl/core';
import { scriptedPolicy } from '@mage-rl/core/testing';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { createOpponent, PATTERN_NAMES } from '@mage-rl/opponents';
import { createMemory } from '@mage-rl/reflection';
import type { BenchResult, BenchSection } from '../harness';

const OPPONENTS = [...PATTERN_NAMES.map((p) => `pattern-${p}`), 'random'];

/** Plays the first empty cell listed in the last prompt (no model, no search). */
function firstEmptyCell(): PolicyV1 {
  return scriptedPolicy((r) => {
    if (r.phase === 'reflect')
      return '<remark>Play the first empty cell again, but watch the diagonal.</remark>';
    const text = r.messages[r.messages.length - 1]?.content ?? '';
    const cells = text.slice(text.lastIndexOf('Empty cells:'));
    const m = /\((\d), (\d)\)/.exec(cells);
    return `<action>(${m?.[1] ?? 1}, ${m?.[2] ?? 1})</action>`;
  }, 'first-empty');
}

async function once(context: 'turn' | 'transcript', earlyStop: boolean, seed: number) {
  const start = performance.now();
  const batch = await runMetaEpisodes({
    env: createTicTacToe(),
    policy: firstEmptyCell(),
    memory: createMemory({ mode: 'reflection+history' }),
    opponents: OPPONENTS,
    makeOpponent: (id) => createOpponent('tictactoe', id),
    groups: 8,
    groupSize: 8,
    attempts: 3,
    seats: { mixed: 0.5 },
    earlyStop,
    context,
    seed,
  });
  const ms = performance.now() - start;
  computeMetrics(batch);
  return { ms, rows: batch.rows.length };
}

const section: BenchSection = {
  title: 'Meta-episode runner (64 slots × 3 attempts, Tic-Tac-Toe, scripted policy)',
  async run() {
    const results: BenchResult[] = [];
    for (const [context, earlyStop] of [
      ['turn', true],
      ['turn', false],
      ['transcript', false],
    ] as const) {
      await once(context, earlyStop, 0); // warm-up (module JIT)
      const times: number[] = [];
      let rows = 0;
      for (let i = 1; i <= 5; i++) {
        const r = await once(context, earlyStop, i);
        times.push(r.ms);
        rows += r.rows;
      }
      times.sort((a, b) => a - b);
      const median = times[2] as number;
      results.push({
        name: `one run, ${context} layout, earlyStop ${earlyStop ? 'on' : 'off'}`,
        value: median,
        unit: 'ms',
        target: { value: 1000, comparison: '<=' },
        note: `median of 5; ${Math.round(rows / 5)} rows/run, ${Math.round((rows * 1000) / times.reduce((a, b) => a + b, 0))} rows/s`,
      });
    }
    return results;
  },
};
export default section;
