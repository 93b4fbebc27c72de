import { RUN_PRESETS } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { noteRecallWarning, warmStartKey } from './pretrain';

describe('warmStartKey', () => {
  const base = { envs: ['tictactoe'], preset: 'laptop', seed: 1 } as const;

  it('is stable and ignores env order and overrides equal to the preset', () => {
    expect(warmStartKey(base)).toBe(warmStartKey({ ...base }));
    expect(warmStartKey({ ...base, envs: ['kuhn-poker', 'tictactoe'] })).toBe(
      warmStartKey({ ...base, envs: ['tictactoe', 'kuhn-poker'] }),
    );
    expect(warmStartKey({ ...base, warmStart: { epochs: RUN_PRESETS.laptop.warmStart.epochs } })).toBe(
      warmStartKey(base),
    );
    expect(warmStartKey({ ...base, envOptions: {} })).toBe(warmStartKey(base));
  });

  it('changes with anything that changes the weights', () => {
    const keys = new Set([
      warmStartKey(base),
      warmStartKey({ ...base, seed: 2 }),
      warmStartKey({ ...base, preset: 'smoke' }),
      warmStartKey({ ...base, envs: ['kuhn-poker'] }),
      warmStartKey({ ...base, warmStart: { mistakes: 0 } }),
      warmStartKey({ ...base, warmStart: { epochs: 1 } }),
      warmStartKey({ ...base, warmStart: { adaptive: 0.5 } }),
      warmStartKey({ ...base, warmStart: { earlyStop: false } }),
      warmStartKey({ ...base, envOptions: { size: 4 } }),
    ]);
    expect(keys.size).toBe(9);
  });

  it("holds the env's own warm-start defaults; a reader's opening of 0 keys as none", () => {
    const treasure = { envs: ['treasure'], preset: 'laptop', seed: 1 } as const;
    const doors = { ...treasure, envs: ['doors'] } as const;
    // Treasure opens with the reader's probe by default: the same key as asking for it.
    expect(warmStartKey(treasure)).toBe(warmStartKey({ ...treasure, warmStart: { readerOpening: 1 } }));
    expect(warmStartKey({ ...treasure, warmStart: { readerOpening: 0 } })).not.toBe(warmStartKey(treasure));
    // A share of 0 makes the corpus of no share: keys made before the field existed still match.
    expect(warmStartKey({ ...doors, warmStart: { readerOpening: 0 } })).toBe(warmStartKey(doors));
    expect(warmStartKey({ ...doors, warmStart: { readerOpening: 0.5 } })).not.toBe(warmStartKey(doors));
  });
});

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
