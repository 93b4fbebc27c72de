import { describe, expect, it } from 'vitest';
import { formatCell, formatTable } from './format';

describe('output formatting', () => {
  it('aligns numbers right and text left', () => {
    expect(
      formatTable(
        ['id', 'value'],
        [
          ['a', 1.5],
          ['long-id', -10],
        ],
        2,
      ),
    ).toBe(['id       value', '-------  -----', 'a         1.50', 'long-id    -10'].join('\n'));
  });
  it('formats cells', () => {
    expect(formatCell(null)).toBe('');
    expect(formatCell(2)).toBe('2');
    expect(formatCell(Number.NaN)).toBe('NaN');
  });
});
