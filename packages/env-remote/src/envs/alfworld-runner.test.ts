import { runMetaEpisodes } from '@mage-rl/core';
import { scriptedPolicy } from '@mage-rl/core/testing';
import { createMemory } from '@mage-rl/reflection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRemoteEnvs } from '../lifecycle';
import { type ChildServer, spawnServer } from '../spawn-server.test-helper';
import { createAlfWorld } from './alfworld';

/**
 * Goes to the countertop first; if the mug is not there (odd games) it loses the attempt, unless the
 * prompt carries a note from an earlier attempt, which sends it to the fridge. Reflect turns write that note.
 */
const policy = () =>
  scriptedPolicy((r) => {
    if (r.phase === 'reflect') return '<remark>the mug was not on the countertop: try the fridge</remark>';
    const prompt = r.messages.map((m) => m.content).join('\n');
    const now = prompt.slice(prompt.lastIndexOf('Current state:'));
    const take = /take mug 1 from [a-z]+ 1/.exec(now);
    if (now.includes('put mug 1 in/on cabinet 1')) return '<action>put mug 1 in/on cabinet 1</action>';
    if (take) return `<action>${take[0]}</action>`;
    if (now.includes('You pick up the mug')) return '<action>go to cabinet 1</action>';
    return prompt.includes('try the fridge')
      ? '<action>go to fridge 1</action>'
      : '<action>go to countertop 1</action>';
  });

describe('ALFWorld through the runner against a stateful fake AgentGym server', () => {
  let server: ChildServer;
  beforeAll(async () => {
    server = await spawnServer('fake-alfworld-server.mjs');
  });
  afterAll(async () => {
    closeRemoteEnvs();
    await server.stop();
  });

  it('K attempts restart the same game; a win ends the meta-episode; instances are pooled', async () => {
    const env = createAlfWorld({ url: server.url, retries: 0, maxTurns: 6, trainTasks: [0, 4] });
    const batch = await runMetaEpisodes({
      env,
      policy: policy(),
      memory: createMemory({ mode: 'reflection' }),
      groups: 4,
      groupSize: 2,
      attempts: 2,
      seed: 11,
    });
    const stats = (await (await fetch(`${server.url}/__stats`)).json()) as {
      creates: number;
      resets: Record<string, number>;
    };
    const games = batch.groups.map((g) => g.task.seed % 4);
    for (const slot of batch.slots) {
      const game = games[batch.groups.findIndex((g) => g.slots.includes(slot.slot))] as number;
      const outcomes = slot.attempts.map((a) => a.outcome.label);
      // Even games: won in attempt 1. Odd games: lost (truncated) in attempt 1, won in attempt 2 thanks to the note.
      expect(outcomes).toEqual(game % 2 === 0 ? ['won'] : ['truncated', 'won']);
    }
    // One instance per slot, every reset on the slot's own game.
    expect(stats.creates).toBe(8);
    const expected: Record<string, number> = {};
    for (const g of games) expected[g] = (expected[g] ?? 0) + (g % 2 === 0 ? 2 : 4);
    expect(stats.resets).toEqual(expected);
  });
});
