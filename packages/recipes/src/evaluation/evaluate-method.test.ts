import { type EnvV1, UnknownIdError } from '@mage-rl/core';
import { createKuhnPoker } from '@mage-rl/envs/kuhn-poker';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import type { MementoMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { resolveTrainConfig } from '../presets';
import { createTeacher } from '../teachers';
import { createMemoryOfKind } from '../wiring';
import { evaluateConfig, evaluateMethod, evaluationSuites } from './evaluate-method';

const ttt = createTicTacToe() as unknown as EnvV1;
const opponents = ['pattern-centre-first', 'random'];

async function run(method: string, env: EnvV1 = ttt, extra: Record<string, unknown> = {}) {
  return evaluateMethod({
    env,
    policy: createTeacher(env, { style: 'compact' }),
    method,
    opponents: env.id === 'kuhn-poker' ? ['aggressive', 'cfr'] : env.needsOpponent ? opponents : [],
    episodes: 8,
    style: 'compact',
    earlyStop: false,
    seed: 4,
    ...extra,
  });
}

const prompts = (rows: readonly { promptText: string; attempt: number; phase: string }[], attempt: number) =>
  rows.filter((r) => r.phase === 'play' && r.attempt === attempt).map((r) => r.promptText);

describe('evaluateMethod runs the non-training methods with their memory', () => {
  it('react: no memory, no reflections', async () => {
    const { metrics, batch, memory } = await run('react');
    expect(memory.id).toBe('none');
    expect(batch.rows.some((r) => r.phase === 'reflect')).toBe(false);
    expect(prompts(batch.rows, 2).every((p) => !p.includes('memory :'))).toBe(true);
    expect(Object.keys(metrics.byOpponent)).toEqual([...opponents].sort());
    for (const id of opponents) expect(metrics.byOpponent[id]?.metaEpisodes).toBe(8);
  });

  it('reflexion: reflect turns, notes in later prompts', async () => {
    const { batch, memory } = await run('reflexion');
    expect(memory.id).toBe('reflection');
    expect(batch.rows.some((r) => r.phase === 'reflect')).toBe(true);
    expect(prompts(batch.rows, 1).every((p) => p.includes('note :'))).toBe(true);
    expect(prompts(batch.rows, 0).some((p) => p.includes('note :'))).toBe(false);
  });

  it('memento: later waves retrieve the cases earlier waves stored', async () => {
    const { batch, memory } = await run('memento');
    expect(memory.id).toBe('memento');
    expect((memory as MementoMemory).cases.length).toBe(16 * 3);
    const first = batch.rows.filter((r) => r.phase === 'play' && r.attempt === 0 && r.turn === 0);
    expect(first.some((r) => r.promptText.includes('cases :'))).toBe(true);
    expect(first.some((r) => !r.promptText.includes('cases :'))).toBe(true); // wave 1 starts empty
  });

  it('a memento memory given to a method of another memory still plays in waves', async () => {
    const { batch, memory } = await run('mage', ttt, { memory: createMemoryOfKind('memento') });
    expect(memory.id).toBe('memento');
    const first = batch.rows.filter((r) => r.phase === 'play' && r.attempt === 0 && r.turn === 0);
    expect(first.some((r) => r.promptText.includes('cases :'))).toBe(true);
    expect(first.some((r) => !r.promptText.includes('cases :'))).toBe(true);
  });

  it('a-mem: notes are written and retrieved', async () => {
    const { batch, memory } = await run('a-mem');
    expect(memory.id).toBe('a-mem');
    expect(batch.rows.some((r) => r.phase === 'reflect')).toBe(true);
    expect(batch.rows.some((r) => r.promptText.includes('notes :'))).toBe(true);
  });

  it('kuhn and sokoban, and trained methods evaluate with their memory', async () => {
    const kuhn = await run('reflexion', createKuhnPoker() as unknown as EnvV1);
    expect(kuhn.batch.rows.filter((r) => r.phase === 'play').every((r) => r.valid)).toBe(true);
    const sok = await run('react', createSokoban() as unknown as EnvV1, { episodes: 4 });
    expect(sok.metrics.overall.perAttempt[0]?.success.rate).toBeGreaterThan(0.5);
    expect((await run('grpo', ttt, { episodes: 2 })).memory.id).toBe('none');
    expect((await run('mage', ttt, { episodes: 2 })).memory.id).toBe('reflection');
  });

  it('rejects unknown methods', async () => {
    await expect(run('ppo')).rejects.toBeInstanceOf(UnknownIdError);
  });
});

describe('evaluateConfig', () => {
  it('in-domain and out-of-domain suites per env', () => {
    const names = (env: string) => evaluationSuites(resolveTrainConfig({}, { env })).map((s) => s.name);
    expect(names('tictactoe')).toEqual(['in-domain', 'out-of-domain']);
    expect(names('kuhn-poker')).toEqual(['in-domain', 'out-of-domain']);
    expect(names('sokoban')).toEqual(['in-domain', 'out-of-domain:boxes=1', 'out-of-domain:boxes=3']);
    const kuhn = evaluationSuites(resolveTrainConfig({}, { env: 'kuhn-poker' }));
    expect(kuhn[1]).toMatchObject({ opponents: ['cfr'], envOptions: { revealShowdown: false } });
  });

  it('runs every suite of a smoke config with a teacher', async () => {
    const config = resolveTrainConfig(
      { eval: { inDomain: ['random'], episodes: 2 } },
      { preset: 'smoke', method: 'mage', env: 'tictactoe' },
    );
    const results = await evaluateConfig({
      config,
      policy: createTeacher(createTicTacToe(), { style: config.rollout.style }),
    });
    expect(results.map((r) => r.suite.name)).toEqual(['in-domain', 'out-of-domain']);
    expect(Object.keys(results[1]?.result.metrics.byOpponent ?? {})).toEqual(['mcts-1000']);
    expect(results.every((r) => r.result.batch.rows.every((row) => row.valid))).toBe(true);
  });

  it("wraps each suite's memory, the protocol's kind, when asked", async () => {
    const config = resolveTrainConfig(
      { eval: { inDomain: ['random'], episodes: 1 } },
      { preset: 'smoke', method: 'grpo', env: 'tictactoe' },
    );
    const wrapped: string[] = [];
    const results = await evaluateConfig({
      config,
      policy: createTeacher(createTicTacToe(), { style: config.rollout.style }),
      memory: 'reflection',
      wrapMemory: (memory, suite) => {
        wrapped.push(`${suite.name}:${memory.id}`);
        return { ...memory, id: `${memory.id}/wrapped` };
      },
    });
    expect(wrapped).toEqual(['in-domain:reflection', 'out-of-domain:reflection']);
    expect(results.map((r) => r.result.memory.id)).toEqual(['reflection/wrapped', 'reflection/wrapped']);
  });
});
