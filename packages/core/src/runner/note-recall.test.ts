import { describe, expect, it } from 'vitest';
import { noteRecall } from './note-recall';

const attempt = (events: string[], reveal?: string) => ({
  steps: events.map((event) => ({ event })) as never,
  ...(reveal === undefined ? {} : { reveal }),
});

describe('noteRecall', () => {
  it('counts the distinct facts a note states word for word, spacing aside', () => {
    const a = attempt([
      'you ( 1 , 1 ) opponent ( 2 , 2 )',
      'invalid',
      'invalid',
      'you ( 3 , 3 ) opponent ( 1 , 3 )',
    ]);
    const full =
      'attempt 1 lost . turn 1 -> you ( 1 , 1 )  opponent ( 2 , 2 ) . turn 2 -> invalid . turn 3 -> invalid . turn 4 -> you ( 3 , 3 )\nopponent ( 1 , 3 )';
    expect(noteRecall(full, a)).toBe(1);
    // Three distinct facts; the invented move states none of the two moves.
    expect(noteRecall('turn 1 -> you ( 1 , 2 ) opponent ( 2 , 2 ) . turn 2 -> invalid', a)).toBeCloseTo(
      1 / 3,
      12,
    );
    expect(noteRecall('', a)).toBe(0);
  });

  it('counts the reveal as a fact, and an attempt without facts as recalled', () => {
    const a = attempt(['you bet , opponent call'], 'opponent card K');
    expect(noteRecall('you bet , opponent call', a)).toBe(0.5);
    expect(noteRecall('you bet , opponent call . opponent card K', a)).toBe(1);
    expect(noteRecall('anything', attempt(['', '  ']))).toBe(1);
  });
});
