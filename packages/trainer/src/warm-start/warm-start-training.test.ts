import { RUN_PRESETS } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { epochPlan } from './warm-start-training';

describe('epochPlan', () => {
  it('steps batchRows rows at a time over every epoch, warming up for a tenth of the steps (at most 20)', () => {
    const ws = { ...RUN_PRESETS.smoke.warmStart, batchRows: 4, epochs: 3 };
    expect(epochPlan(ws, 10)).toEqual({ epochs: 3, batch: 4, chunk: 16, totalSteps: 9, warmupSteps: 0 });
    expect(epochPlan(ws, 1000).warmupSteps).toBe(20);
  });
});
