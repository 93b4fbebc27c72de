import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractAction, extractRemark, MAX_NOTE_CHARS } from './tags';

describe('extractRemark', () => {
  it('takes the last complete <remark> block, trimmed', () => {
    expect(extractRemark('think... <remark> play the corner </remark>')).toEqual({
      note: 'play the corner',
      found: true,
    });
    expect(extractRemark('<remark>a</remark> then <remark>b</remark>')).toEqual({ note: 'b', found: true });
    expect(extractRemark('<remark>x <remark>y</remark>')).toEqual({ note: 'y', found: true });
    expect(extractRemark('<remark>a</remark> <remark>unclosed')).toEqual({ note: 'a', found: true });
    expect(extractRemark('<remark></remark>')).toEqual({ note: '', found: true });
  });

  it('reports a missing tag as an empty note', () => {
    for (const t of [
      '',
      'no tags',
      '<remark>open only',
      'close only</remark>',
      '</remark><remark>',
      42,
      null,
    ]) {
      expect(extractRemark(t)).toEqual({ note: '', found: false });
    }
  });

  it('caps the note at 2000 characters', () => {
    const { note } = extractRemark(`<remark>${'n'.repeat(5000)}</remark>`);
    expect(note).toHaveLength(MAX_NOTE_CHARS);
  });

  it('never throws and always returns a trimmed note within the cap (property)', () => {
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom('<remark>', '</remark>', '<action>', '</action>', ' ', '\n'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (parts) => {
        const text = parts.join('');
        const r = extractRemark(text);
        expect(r.note.length).toBeLessThanOrEqual(MAX_NOTE_CHARS);
        expect(r.note).toBe(r.note.trim());
        if (!r.found) expect(r.note).toBe('');
        if (r.found) expect(text).toContain(r.note);
        const a = extractAction(text);
        if (a !== null) expect(text).toContain(`<action>${a}</action>`);
      }),
    );
  });

  it('round-trips any note without tags (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 50 }), (note, prefix) => {
        fc.pre(!note.includes('<remark>') && !note.includes('</remark>') && !prefix.includes('</remark>'));
        expect(extractRemark(`${prefix}<remark>${note}</remark>`).note).toBe(note.trim());
      }),
    );
  });
});

describe('extractAction', () => {
  it('takes the first complete <action> block', () => {
    expect(extractAction('<action>(1, 2)</action><action>(3,3)</action>')).toBe('(1, 2)');
    expect(extractAction('<action>BET')).toBeNull();
    expect(extractAction('nothing')).toBeNull();
  });
});
