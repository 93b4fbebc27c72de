import { type AttemptOutcome, createRng, type OpponentV1, runMetaEpisodes } from '@mage-rl/core';
import { createTicTacToe, type TicTacToeAction, type TicTacToeState } from '@mage-rl/envs/tictactoe';
import { describe, expect, it } from 'vitest';
import { resolveTrainConfig } from '../presets/resolve-config';
import { RUN_PRESET_IDS } from '../presets/run-presets';
import { createEnvById, createMemoryOfKind, opponentFactory } from '../wiring';
import { createTeacher, TEACHER_ENV_IDS } from './create-teacher';
import { factualNote } from './notes';

/** Every env with a teacher at its defaults, and Tic-Tac-Toe revealing its moves (the note copies the line). */
const CASES: readonly { readonly env: string; readonly options: Record<string, unknown> }[] = [
  ...TEACHER_ENV_IDS.map((env) => ({ env, options: {} })),
  { env: 'tictactoe', options: { reveal: 'moves', replies: 'board' } },
];

/**
 * A teacher's note must fit the note budget of every preset that warm-starts, or the warm start learns
 * notes that evaluation cuts. Compact notes are whitespace-separated words of the embedded model's
 * word-level vocabulary: one token per word.
 */
describe('teacher notes fit the note budget and state their facts', () => {
  for (const { env, options } of CASES) {
    const label = Object.keys(options).length > 0 ? `${env} ${JSON.stringify(options)}` : env;
    it(`${label}: every note of the reading and note-blind teachers, with mistakes, within maxTokens.reflect and stating all its attempt's facts`, async () => {
      let checked = 0;
      // `smoke` is a plumbing check: its 16-token note budget cuts notes on purpose, to stay fast.
      for (const preset of RUN_PRESET_IDS.filter((p) => p !== 'smoke')) {
        const config = resolveTrainConfig({}, { env, preset, method: 'mage' });
        if (config.warmStart.iterations === 0) continue;
        const e = createEnvById(env, { ...config.env.options, ...options });
        const makeOpponent = opponentFactory(env);
        const opponents = makeOpponent ? config.eval.inDomain : [];
        const batch = await runMetaEpisodes({
          env: e,
          policy: createTeacher(e, { style: 'compact', adaptive: 0.5, mistakes: 0.1, noise: 0.1 }),
          memory: createMemoryOfKind('reflection'),
          ...(makeOpponent ? { opponents, makeOpponent } : {}),
          groups: Math.max(8, 2 * opponents.length),
          groupSize: 2,
          attempts: config.rollout.attempts,
          earlyStop: false,
          style: 'compact',
          seed: `note-budget/${env}`,
        });
        const words = batch.rows
          .filter((r) => r.phase === 'reflect')
          .map((r) => r.responseText.trim().split(/\s+/).length);
        expect(words.length).toBeGreaterThan(0);
        checked++;
        expect(Math.max(...words)).toBeLessThanOrEqual(config.rollout.maxTokens.reflect);
        // Factual notes state every fact of their attempt (events and reveal): what a reader could use.
        // Frozen Tic-Tac-Toe's state its reveal alone, the agent's line, which is what a replay needs.
        const reflect = batch.rows.filter((r) => r.phase === 'reflect');
        if (env === 'tictactoe-frozen') {
          for (const r of reflect) expect(r.responseText).toMatch(/ \. end you( [1-3][1-3])* <\/remark>$/);
        } else expect(reflect.every((r) => r.noteRecall === 1)).toBe(true);
      }
      expect(checked).toBeGreaterThan(0);
    }, 60_000);
  }
});

describe("Tic-Tac-Toe reveal 'moves': the longest note", () => {
  it('a full 3×3 board after the most invalid turns the turn limit leaves: 68 words of line, within every budget', () => {
    // The agent sits second and wastes 4 of its 8 turns; the game then fills the board to a draw.
    const order = [3, 4, 2, 8, 1];
    const opponent: OpponentV1<TicTacToeState, TicTacToeAction> = {
      specificationVersion: 'v1',
      id: 'order',
      act: (s) => order.find((c) => ((s.x | s.o) & (1 << c)) === 0) ?? 0,
    };
    const env = createTicTacToe({ reveal: 'moves' });
    const ep = env.createEpisode({ seed: 1, seat: 'second', style: 'compact', rng: createRng(1), opponent });
    ep.reset(0);
    const events: string[] = [];
    let outcome: AttemptOutcome | undefined;
    for (const answer of [
      'nothing',
      'nothing',
      'nothing',
      'nothing',
      ...[6, 5, 7, 0].map((c) => env.formatAction(c, 'compact')),
    ]) {
      const step = ep.step(ep.parse(answer));
      events.push(step.event);
      outcome = step.outcome;
    }
    expect(outcome?.label).toBe('draw');
    const reveal = ep.reveal() ?? '';
    expect(reveal.split(' ')).toHaveLength(68);
    expect(reveal).toHaveLength(204);
    const note = factualNote({ outcome: outcome!, events, reveal }, { attempt: 2, style: 'compact' });
    expect(note).toBe(`<remark> attempt 3 draw . ${reveal} </remark>`);
    const budgets = RUN_PRESET_IDS.filter((p) => p !== 'smoke').map(
      (preset) =>
        resolveTrainConfig({}, { env: 'tictactoe', preset, method: 'mage' }).rollout.maxTokens.reflect,
    );
    expect(note.split(' ').length).toBeLessThanOrEqual(Math.min(...budgets));
  });
});
