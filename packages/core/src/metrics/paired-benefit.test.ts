import type { AttemptRecord, SlotRecord } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import { pairedPassBenefit } from './paired-benefit';

/** A slot on task `seed` whose attempts succeed as `wins` says (one entry per attempt played). */
function slot(id: string, seed: number, wins: readonly boolean[]): SlotRecord {
  return {
    slot: id,
    group: id,
    task: { envId: 'e', seed, opponentId: 'o', seat: 'first' },
    attempts: wins.map((success, attempt) => ({ attempt, outcome: { success } }) as unknown as AttemptRecord),
  };
}

describe('pairedPassBenefit', () => {
  it('differences pass@k per meta-episode on the same tasks', () => {
    const a = [slot('s0', 1, [false, true]), slot('s1', 2, [true]), slot('s2', 3, [false, false, true])];
    const b = [slot('s0', 1, [false, false, false]), slot('s1', 2, [true]), slot('s2', 3, [false, true])];
    const r = pairedPassBenefit(a, b, 3);
    expect(r.pairs).toBe(3);
    // Per slot: s0 +1 at k ≥ 2, s1 0, s2 −1 at k = 2 and 0 at k = 3.
    expect(r.passAtK.map((m) => m.mean)).toEqual([0, 0, 1 / 3]);
    expect(r.passAtK[2]!.low).toBeLessThan(1 / 3);
  });

  it('pairs only the meta-episodes played on the same task', () => {
    const a = [slot('s0', 1, [true]), slot('s1', 2, [true])];
    const b = [slot('s0', 9, [false]), slot('s1', 2, [false])];
    const r = pairedPassBenefit(a, b, 1);
    expect(r.pairs).toBe(1);
    expect(r.passAtK[0]!.mean).toBe(1);
  });
});
