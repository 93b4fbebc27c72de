import { describe, expect, it } from 'vitest';
import { noteRecallWarning } from './pretrain';

describe('noteRecallWarning', () => {
  const result = (noteRecall?: number) => ({
    env: 'treasure',
    examples: 1,
    legalMoveRate: 1,
    validReflectionRate: 1,
    ...(noteRecall === undefined ? {} : { noteRecall }),
    passAtK: [],
    teacherPassAtK: [],
  });

  it('flags notes that state less than 80% of their attempt (Treasure at 61% taught no reading), not faithful ones', () => {
    expect(noteRecallWarning(result(0.61))).toMatch(
      /treasure warm start's notes state 61%.*warmStart\.epochs/,
    );
    expect(noteRecallWarning(result(0.95))).toBeUndefined();
    expect(noteRecallWarning(result())).toBeUndefined();
  });
});
