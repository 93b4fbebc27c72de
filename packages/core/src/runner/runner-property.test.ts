import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNimEnv, GARBAGE_RESPONSES, nimGame, randomLegalOpponent, scriptedPolicy } from '../testing';
import { runMetaEpisodes } from './run-meta-episodes';
import { simpleMemory } from './simple-memory.test-helper';

const env = createNimEnv({ maxTurns: 5 });
const RESPONSES = [
  ...GARBAGE_RESPONSES,
  '<action>1</action>',
  '<action>2</action>',
  '<remark>x</remark>',
  'a <action> 2 </action>',
];

describe('runMetaEpisodes (property)', () => {
  it('never crashes on model text and keeps records consistent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...RESPONSES), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        async (script, seed, earlyStop) => {
          const batch = await runMetaEpisodes({
            env,
            policy: scriptedPolicy((_, i) => script[i % script.length] as string),
            memory: simpleMemory(),
            opponents: ['random'],
            makeOpponent: (id) => randomLegalOpponent(nimGame, id),
            groups: 2,
            groupSize: 2,
            seed,
            earlyStop,
            seats: { mixed: 0.5 },
          });
          for (const slot of batch.slots) {
            const rows = batch.rows.filter((r) => r.slot === slot.slot);
            expect(slot.attempts.length).toBeGreaterThanOrEqual(1);
            expect(slot.attempts.length).toBeLessThanOrEqual(3);
            for (const a of slot.attempts) {
              const plays = rows.filter((r) => r.phase === 'play' && r.attempt === a.attempt);
              expect(plays.length).toBe(a.turns);
              expect(plays.length).toBeLessThanOrEqual(env.maxTurns);
              expect(plays.filter((r) => !r.valid).length).toBe(a.invalidTurns);
              expect(plays.reduce((s, r) => s + r.reward, 0)).toBe(a.return);
              expect(plays.filter((r) => !r.valid).every((r) => r.reward === 0)).toBe(true);
            }
            expect(rows.filter((r) => r.phase === 'reflect')).toHaveLength(slot.attempts.length - 1);
            if (earlyStop) expect(slot.attempts.slice(0, -1).some((a) => a.outcome.success)).toBe(false);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
