import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MageError } from '@mage-rl/core';
import { useTempDir } from '@mage-rl/core/testing/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSafetensors, readSafetensorsFile, serializeSafetensors, toFloat32 } from './safetensors';

const sample = () =>
  serializeSafetensors(
    new Map([
      ['a', { data: Float32Array.from([1, -2.5, 3, 4e-3]), shape: [2, 2] }],
      ['b.weight', { data: Float32Array.from([0.5]), shape: [1] }],
    ]),
    { format: 'pt' },
  );

function header(json: unknown, data = new Uint8Array(0)): Uint8Array {
  const h = new TextEncoder().encode(JSON.stringify(json));
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

function expectCheckpointError(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    expect(MageError.isInstance(e)).toBe(true);
    expect((e as MageError).name).toBe('CheckpointError');
    return;
  }
  expect.unreachable('no error thrown');
}

describe('safetensors', () => {
  it('round-trips float32 tensors and metadata', () => {
    const file = parseSafetensors(sample());
    expect(file.metadata).toEqual({ format: 'pt' });
    const a = file.tensors.get('a');
    expect(a?.shape).toEqual([2, 2]);
    expect(Array.from(toFloat32(a as never))).toEqual(Array.from(Float32Array.from([1, -2.5, 3, 4e-3])));
    // 8-byte aligned data section.
    expect(Number(new DataView(sample().buffer).getBigUint64(0, true)) % 8).toBe(0);
  });

  it('decodes fp16 and bf16', () => {
    const f16 = Uint8Array.from([0x00, 0x3c, 0x00, 0xc0, 0x00, 0x35]); // 1, -2, 0.3125
    const bf16 = Uint8Array.from([0x80, 0x3f, 0x40, 0xc0]); // 1, -3
    const file = parseSafetensors(
      header(
        {
          h: { dtype: 'F16', shape: [3], data_offsets: [0, 6] },
          b: { dtype: 'BF16', shape: [2], data_offsets: [6, 10] },
        },
        Uint8Array.from([...f16, ...bf16]),
      ),
    );
    expect(Array.from(toFloat32(file.tensors.get('h') as never))).toEqual([1, -2, 0.3125]);
    expect(Array.from(toFloat32(file.tensors.get('b') as never))).toEqual([1, -3]);
  });

  it('rejects lying headers with a CheckpointError', () => {
    const data = new Uint8Array(16);
    expectCheckpointError(() => parseSafetensors(new Uint8Array(3)));
    expectCheckpointError(() =>
      parseSafetensors(header({ a: { dtype: 'F32', shape: [1e12], data_offsets: [0, 16] } }, data)),
    );
    expectCheckpointError(() =>
      parseSafetensors(header({ a: { dtype: 'F32', shape: [4], data_offsets: [0, 4e12] } }, data)),
    );
    expectCheckpointError(() =>
      parseSafetensors(header({ a: { dtype: 'X9', shape: [4], data_offsets: [0, 16] } }, data)),
    );
    expectCheckpointError(() =>
      parseSafetensors(
        header(
          {
            a: { dtype: 'F32', shape: [3], data_offsets: [0, 12] },
            b: { dtype: 'F32', shape: [2], data_offsets: [8, 16] },
          },
          data,
        ),
      ),
    );
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setBigUint64(0, 2n ** 62n, true);
    expectCheckpointError(() => parseSafetensors(huge));
  });

  it('fuzz: truncated, corrupted or random files parse or fail with a CheckpointError, never crash', () => {
    const good = sample();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.nat({ max: good.length }).map((n) => good.slice(0, n)),
          fc.tuple(fc.nat({ max: good.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([i, v]) => {
            const b = good.slice();
            b[i] = v;
            return b;
          }),
          fc.uint8Array({ maxLength: 200 }),
          fc
            .record({
              dtype: fc.constantFrom('F32', 'F16', 'BF16', 'I64', 'Q4', ''),
              shape: fc.array(fc.integer({ min: -2, max: 2 ** 40 }), { maxLength: 4 }),
              begin: fc.integer({ min: -5, max: 2 ** 40 }),
              end: fc.integer({ min: -5, max: 2 ** 40 }),
            })
            .map((t) =>
              header(
                { t: { dtype: t.dtype, shape: t.shape, data_offsets: [t.begin, t.end] } },
                new Uint8Array(32),
              ),
            ),
        ),
        (bytes) => {
          try {
            const file = parseSafetensors(bytes);
            for (const [name, entry] of file.tensors) {
              if (entry.dtype === 'F32' || entry.dtype === 'F16' || entry.dtype === 'BF16')
                toFloat32(entry, name);
              expect(entry.bytes.length).toBeLessThanOrEqual(bytes.length);
            }
          } catch (e) {
            expect(MageError.isInstance(e)).toBe(true);
          }
        },
      ),
      { numRuns: 2000, seed: 42 },
    );
  });

  describe('readSafetensorsFile', () => {
    const tmp = useTempDir('mage-safetensors-');

    it('reads a file tensor by tensor as parseSafetensors parses its bytes, and fails where it fails', async () => {
      const good = sample();
      const cases = [
        good,
        good.slice(0, good.length - 3),
        good.slice(0, 5),
        header({ a: 1 }),
        new Uint8Array(0),
      ];
      for (const [i, bytes] of cases.entries()) {
        const path = join(tmp.path, `f${i}.safetensors`);
        await writeFile(path, bytes);
        let expected: ReturnType<typeof parseSafetensors> | undefined;
        try {
          expected = parseSafetensors(bytes, path);
        } catch (e) {
          await expect(readSafetensorsFile(path)).rejects.toThrow((e as Error).message);
          continue;
        }
        const read = await readSafetensorsFile(path);
        expect(read.metadata).toEqual(expected.metadata);
        expect([...read.tensors.keys()]).toEqual([...expected.tensors.keys()]);
        for (const [name, entry] of expected.tensors) {
          const got = read.tensors.get(name)!;
          expect(got.shape).toEqual(entry.shape);
          expect(Array.from(toFloat32(got, name))).toEqual(Array.from(toFloat32(entry, name)));
        }
      }
    });
  });
});
