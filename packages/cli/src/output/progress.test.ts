import { describe, expect, it } from 'vitest';
import { formatDuration } from './progress';

describe('formatDuration (the ETA of the progress bars)', () => {
  it('prints -- where cli-progress has no estimate, instead of NFs', () => {
    for (const none of ['INF', 'NULL', Number.NaN, Number.POSITIVE_INFINITY, -1, undefined]) {
      expect(formatDuration(none)).toBe('--');
    }
  });

  it('prints seconds, minutes and hours', () => {
    expect([0, 42, 65, 3599, 7380].map(formatDuration)).toEqual(['0s', '42s', '1m05s', '59m59s', '2h03m']);
  });
});
