import { createRng } from '@mage-rl/core';
import { describeEnvConformance } from '@mage-rl/core/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createHigherLower } from './higher-lower.js';

describeEnvConformance('higher-lower (example package)', () => createHigherLower());

describe('higher-lower rules', () => {
  it('answers higher / lower / correct and rewards the find', () => {
    const env = createHigherLower({ max: 16 });
    const ep = env.createEpisode({ seed: 1, seat: 'first', style: 'compact', rng: createRng(1) });
    ep.reset(0);
    const secret = ep.state.secret;
    const low = ep.step(ep.parse('<action>1</action>'));
    expect(low.event).toBe(secret === 1 ? 'guess 1 correct' : 'guess 1 higher');
    const hit = ep.step(ep.parse(`<action>${secret}</action>`));
    expect(hit).toMatchObject({ reward: 10, done: true, outcome: { success: true } });
  });

  it('rejects bad options with the path', () => {
    expect(() => createHigherLower({ max: 1 })).toThrow(/max must be/);
  });
});
