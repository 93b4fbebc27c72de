import { describe, expect, it } from 'vitest';
import fixture from './__fixtures__/float-formats.json';
import {
  bf16FromFloat32Bits,
  decodeFloats,
  encodeFloats,
  f16FromFloat32,
  float32FromBits,
} from './float-formats';

const isBf16NaN = (h: number) => (h & 0x7f80) === 0x7f80 && (h & 0x7f) !== 0;
const isF16NaN = (h: number) => (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0;
const hex = (n: number) => `0x${n.toString(16).padStart(4, '0')}`;

describe('float formats', () => {
  it("bf16 and f16 rounding gives PyTorch's bits (ties to even, overflow, subnormals; any NaN for NaN)", () => {
    const { float32Bits, bf16Bits, f16Bits } = fixture;
    expect(float32Bits.length).toBe(640);
    const bf16Wrong: string[] = [];
    const f16Wrong: string[] = [];
    float32Bits.forEach((bits, i) => {
      const b = bf16FromFloat32Bits(bits);
      const wantB = bf16Bits[i] as number;
      if (isBf16NaN(wantB) ? !isBf16NaN(b) : b !== wantB)
        bf16Wrong.push(`${bits}: ${hex(b)} ≠ ${hex(wantB)}`);
      const h = f16FromFloat32(float32FromBits(bits));
      const wantH = f16Bits[i] as number;
      // NaN keeps its sign in PyTorch's float16 conversion, so it is compared exactly.
      if (h !== wantH) f16Wrong.push(`${bits}: ${hex(h)} ≠ ${hex(wantH)}`);
    });
    expect(bf16Wrong).toEqual([]);
    expect(f16Wrong).toEqual([]);
    // Named cases: a bf16 tie rounds to the even neighbour, either way.
    expect(bf16FromFloat32Bits(0x3f808000)).toBe(0x3f80);
    expect(bf16FromFloat32Bits(0x3f818000)).toBe(0x3f82);
    expect(bf16FromFloat32Bits(0x7f7fffff)).toBe(0x7f80);
    expect(f16FromFloat32(65520)).toBe(0x7c00);
    expect(f16FromFloat32(2 ** -25)).toBe(0);
  });

  it('every bf16 and f16 value decodes and encodes back to its own bits (buffers encode as one value at a time)', () => {
    for (const dtype of ['BF16', 'F16'] as const) {
      const bits = new Uint16Array(65536).map((_, i) => i);
      const values = new Float32Array(65536);
      decodeFloats(dtype, new Uint8Array(bits.buffer), values);
      const back = new Uint8Array(65536 * 2);
      encodeFloats(dtype, values, back);
      const got = new Uint16Array(back.buffer);
      const isNaNBits = dtype === 'BF16' ? isBf16NaN : isF16NaN;
      let mismatches = 0;
      for (let i = 0; i < 65536; i++) {
        if (isNaNBits(i) ? !isNaNBits(got[i] as number) : got[i] !== i) mismatches++;
        const one =
          dtype === 'BF16'
            ? bf16FromFloat32Bits(new Uint32Array(values.buffer)[i] as number)
            : f16FromFloat32(values[i] as number);
        if (one !== got[i]) mismatches++;
      }
      expect(mismatches).toBe(0);
    }
  });

  it('decodes unaligned and aligned bytes alike', () => {
    const values = Float32Array.from([1, -2.5, 3.25, 1e-3, -7]);
    for (const dtype of ['F32', 'BF16', 'F16'] as const) {
      const size = dtype === 'F32' ? 4 : 2;
      const aligned = new Uint8Array(values.length * size);
      encodeFloats(dtype, values, aligned);
      const shifted = new Uint8Array(aligned.length + 1).subarray(1);
      shifted.set(aligned);
      const a = new Float32Array(values.length);
      const b = new Float32Array(values.length);
      decodeFloats(dtype, aligned, a);
      decodeFloats(dtype, shifted, b);
      expect(Array.from(b)).toEqual(Array.from(a));
    }
  });
});
