import type { LearnerRowV1 } from '@mage-rl/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  joinSpanLogprobs,
  packRows,
  spansWithRef,
  unpackLogprobRows,
  unpackRow,
  unpackRows,
  validatePackedRow,
} from './packing';

const tokens = (min = 0, max = 6) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max });

/** A transcript: each turn's prompt = previous prompt + response + a new observation. */
const transcript = fc
  .record({
    first: tokens(1, 6),
    turns: fc.array(fc.record({ obs: tokens(0, 4), resp: tokens(0, 4), adv: fc.double({ noNaN: true }) }), {
      minLength: 1,
      maxLength: 5,
    }),
    ref: fc.boolean(),
  })
  .map(({ first, turns, ref }) => {
    const rows: LearnerRowV1[] = [];
    let prefix = [...first];
    turns.forEach((t, i) => {
      if (i > 0) prefix = [...prefix, ...t.obs];
      const lp = t.resp.map((x) => -x / 10);
      rows.push({
        promptTokens: prefix,
        responseTokens: t.resp,
        oldLogprobs: lp,
        ...(ref ? { refLogprobs: lp.map((x) => x - 0.5) } : {}),
        advantage: t.adv,
      });
      prefix = [...prefix, ...t.resp];
    });
    return rows;
  });

/** Several slots' transcripts, interleaved in a random but per-slot ordered way, plus stray rows. */
const batch = fc
  .record({
    slots: fc.array(transcript, { minLength: 1, maxLength: 4 }),
    picks: fc.array(fc.nat(), { maxLength: 40 }),
    stray: fc.array(
      fc.record({ p: tokens(1, 8), r: tokens(0, 4) }).map(
        ({ p, r }): LearnerRowV1 => ({
          promptTokens: p,
          responseTokens: r,
          oldLogprobs: r.map(() => -1),
          advantage: 0.5,
        }),
      ),
      { maxLength: 4 },
    ),
  })
  .map(({ slots, picks, stray }) => {
    const queues = slots.map((rows) => [...rows]);
    const out: { row: LearnerRowV1; slot: string }[] = [];
    let p = 0;
    while (queues.some((q) => q.length > 0)) {
      const live = queues.flatMap((q, i) => (q.length > 0 ? [i] : []));
      const s = live[(picks[p++] ?? 0) % live.length] as number;
      out.push({ row: queues[s]?.shift() as LearnerRowV1, slot: `s${s}` });
    }
    stray.forEach((row, i) => {
      out.splice((i * 7) % (out.length + 1), 0, { row, slot: `stray${i}` });
    });
    return out;
  });

const plain = (r: LearnerRowV1) => ({
  promptTokens: [...r.promptTokens],
  responseTokens: [...r.responseTokens],
  oldLogprobs: [...r.oldLogprobs],
  refLogprobs: r.refLogprobs === undefined ? undefined : [...r.refLogprobs],
  advantage: r.advantage,
});

describe('packRows', () => {
  it('unpacking gives back every row with response tokens: tokens, log-probs and advantage', () => {
    fc.assert(
      fc.property(batch, fc.integer({ min: 1, max: 40 }), (items, maxTokens) => {
        const rows = items.map((x) => x.row);
        const packed = packRows(rows, { groupOf: (_, i) => items[i]?.slot ?? '', maxTokens });
        for (const p of packed.rows) validatePackedRow(p);
        const back = new Map<number, LearnerRowV1>();
        packed.rows.forEach((p, i) => {
          // Spans come from the source rows that have response tokens, in order.
          const spanSources = (packed.sources[i] as number[]).filter(
            (s) => (rows[s]?.responseTokens.length ?? 0) > 0,
          );
          const unpacked = unpackRow(p);
          expect(unpacked.length).toBe(spanSources.length);
          unpacked.forEach((u, j) => {
            back.set(spanSources[j] as number, u);
          });
        });
        rows.forEach((r, i) => {
          if (r.responseTokens.length === 0) return;
          const u = back.get(i);
          expect(u).toBeDefined();
          expect(plain(u as LearnerRowV1)).toEqual(plain(r));
        });
        // Every input row is in exactly one packed row.
        expect(packed.sources.flat().sort((a, b) => a - b)).toEqual(rows.map((_, i) => i));
      }),
    );
  });

  it('never merges rows of different groups or rows whose prompt does not extend the sequence', () => {
    fc.assert(
      fc.property(batch, (items) => {
        const rows = items.map((x) => x.row);
        const packed = packRows(rows, { groupOf: (_, i) => items[i]?.slot ?? '' });
        packed.sources.forEach((source, p) => {
          const slots = new Set(source.map((s) => items[s]?.slot));
          expect(slots.size).toBe(1);
          const seq = packed.rows[p]?.tokens ?? [];
          for (const s of source) {
            const r = rows[s] as LearnerRowV1;
            // Each merged row is a prefix of the packed sequence (its prompt and response included).
            expect(seq.slice(0, r.promptTokens.length + r.responseTokens.length)).toEqual([
              ...r.promptTokens,
              ...r.responseTokens,
            ]);
          }
        });
      }),
    );
  });

  it('packs a whole transcript into one sequence with the turns as spans and respects maxTokens', () => {
    fc.assert(
      fc.property(transcript, (rows) => {
        const nonEmpty = rows.filter((r) => r.responseTokens.length > 0);
        const packed = packRows(nonEmpty);
        if (nonEmpty.length > 0) {
          expect(packed.rows.length).toBe(1);
          const last = nonEmpty.at(-1) as LearnerRowV1;
          expect(packed.rows[0]?.tokens).toEqual([...last.promptTokens, ...last.responseTokens]);
          expect(packed.rows[0]?.spans.length).toBe(nonEmpty.length);
        }
        const longest = Math.max(0, ...nonEmpty.map((r) => r.promptTokens.length + r.responseTokens.length));
        for (const p of packRows(nonEmpty, { maxTokens: longest - 1 }).rows) {
          // Only single rows longer than the limit may exceed it.
          if (p.tokens.length > longest - 1) expect(p.spans.length).toBe(1);
        }
      }),
    );
  });

  it('splits a transcript that restarts (a new attempt with a fresh context)', () => {
    const row = (p: number[], r: number[]): LearnerRowV1 => ({
      promptTokens: p,
      responseTokens: r,
      oldLogprobs: r.map(() => -1),
      advantage: 1,
    });
    const rows = [row([1, 2], [3]), row([1, 2, 3, 4], [5]), row([1, 9], [3]), row([1, 9, 3, 4], [6])];
    const packed = packRows(rows);
    expect(packed.sources).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(packed.rows[0]).toMatchObject({ tokens: [1, 2, 3, 4, 5], spans: [{ start: 2 }, { start: 4 }] });
    expect(unpackRows(packed.rows).map((r) => r.promptTokens)).toEqual(rows.map((r) => r.promptTokens));
    expect(unpackLogprobRows(packed.rows).map((r) => r.responseTokens)).toEqual([[3], [5], [3], [6]]);
  });

  it("joins its spans' log-probs into one array and splits one back over the spans", () => {
    const joined = joinSpanLogprobs([Float32Array.of(-1, -2), Float32Array.of(), Float32Array.of(-3)]);
    expect(Array.from(joined)).toEqual([-1, -2, -3]);
    const spans = [
      { start: 2, length: 2 },
      { start: 5, length: 0 },
      { start: 7, length: 1 },
    ];
    expect(spansWithRef(spans, joined)).toEqual([
      { start: 2, length: 2, refLogprobs: [-1, -2] },
      { start: 5, length: 0, refLogprobs: [] },
      { start: 7, length: 1, refLogprobs: [-3] },
    ]);
  });

  it('rejects overlapping spans and spans at position 0', () => {
    const span = (start: number, length: number) => ({
      start,
      length,
      oldLogprobs: new Array(length).fill(0),
      advantage: 0,
    });
    expect(() => validatePackedRow({ tokens: [1, 2, 3], spans: [span(0, 1)] })).toThrow(/overlaps/);
    expect(() => validatePackedRow({ tokens: [1, 2, 3], spans: [span(1, 2), span(2, 1)] })).toThrow(
      /overlaps/,
    );
    expect(() => validatePackedRow({ tokens: [1, 2, 3], spans: [span(2, 2)] })).toThrow(/ends after/);
    expect(() => validatePackedRow({ tokens: [1, 2, 3], spans: [span(1, 1), span(2, 1)] })).not.toThrow();
  });
});
