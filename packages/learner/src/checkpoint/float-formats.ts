/**
 * float32 ↔ bfloat16 / float16 bit conversions for safetensors files, chunk by chunk into caller-owned
 * typed arrays. Narrowing rounds to nearest, ties to even, as PyTorch's `tensor.to(torch.bfloat16)`
 * and `.half()` do (checked against PyTorch's bits in `__fixtures__/float-formats.json`).
 */

/** True on little-endian hosts, where safetensors' little-endian data can be viewed in place. */
export const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 bits of `x` (after rounding `x` to float32). */
export function float32Bits(x: number): number {
  f32[0] = x;
  return u32[0] as number;
}

/** The float32 whose bits are `bits`. */
export function float32FromBits(bits: number): number {
  u32[0] = bits >>> 0;
  return f32[0] as number;
}

/** bfloat16 bits of a float32 given by its bits: round to nearest even; NaN becomes 0x7fc0 (PyTorch's). */
export function bf16FromFloat32Bits(u: number): number {
  if ((u & 0x7fffffff) > 0x7f800000) return 0x7fc0;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/**
 * float16 bits of `x` (a float32 value): round to nearest even, including subnormals; overflow to
 * ±infinity; NaN becomes 0x7e00 with its sign. The float32-arithmetic method of the FP16 library
 * that PyTorch uses (every step rounded to float32 with `Math.fround`).
 */
export function f16FromFloat32(x: number): number {
  const w = float32Bits(x);
  const shl1 = (w * 2) >>> 0;
  const sign = (w & 0x80000000) >>> 16;
  if (shl1 > 0xff000000) return sign | 0x7e00;
  let base = Math.fround(Math.fround(Math.abs(float32FromBits(w)) * 2 ** 112) * 2 ** -110);
  let bias = (shl1 & 0xff000000) >>> 0;
  if (bias < 0x71000000) bias = 0x71000000;
  base = Math.fround(float32FromBits((bias >>> 1) + 0x07800000) + base);
  const bits = float32Bits(base);
  return sign | (((bits >>> 13) & 0x7c00) + (bits & 0x0fff));
}

let f16Table: Float32Array | undefined;

/** float32 value of every float16 bit pattern (built once, 256 KiB). */
function f16Values(): Float32Array {
  if (f16Table !== undefined) return f16Table;
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const s = h & 0x8000 ? -1 : 1;
    const e = (h >> 10) & 0x1f;
    const f = h & 0x3ff;
    t[h] =
      e === 0
        ? s * 2 ** -14 * (f / 1024)
        : e === 31
          ? f === 0
            ? s * Number.POSITIVE_INFINITY
            : Number.NaN
          : s * 2 ** (e - 15) * (1 + f / 1024);
  }
  f16Table = t;
  return t;
}

/** Element size in bytes of the floating-point dtypes these conversions handle. */
export const FLOAT_DTYPE_BYTES = { F32: 4, F16: 2, BF16: 2, F64: 8 } as const;
export type FloatDType = keyof typeof FLOAT_DTYPE_BYTES;

/**
 * Decodes `out.length` little-endian values of `dtype` from `bytes` (at least `out.length` elements
 * long) into `out`.
 */
export function decodeFloats(dtype: FloatDType, bytes: Uint8Array, out: Float32Array): void {
  const n = out.length;
  const aligned = LITTLE_ENDIAN && bytes.byteOffset % FLOAT_DTYPE_BYTES[dtype] === 0;
  if (dtype === 'F32') {
    if (aligned) out.set(new Float32Array(bytes.buffer, bytes.byteOffset, n));
    else {
      const view = new DataView(bytes.buffer, bytes.byteOffset, n * 4);
      for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * 4, true);
    }
    return;
  }
  if (dtype === 'F64') {
    const view = new DataView(bytes.buffer, bytes.byteOffset, n * 8);
    for (let i = 0; i < n; i++) out[i] = view.getFloat64(i * 8, true);
    return;
  }
  const halves = aligned ? new Uint16Array(bytes.buffer, bytes.byteOffset, n) : undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, n * 2);
  const at = halves ? (i: number) => halves[i] as number : (i: number) => view.getUint16(i * 2, true);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer, out.byteOffset, n);
    if (halves) for (let i = 0; i < n; i++) bits[i] = (halves[i] as number) << 16;
    else for (let i = 0; i < n; i++) bits[i] = at(i) << 16;
    return;
  }
  const table = f16Values();
  for (let i = 0; i < n; i++) out[i] = table[at(i)] as number;
}

/** Encodes `src` as little-endian `dtype` values into `bytes` (at least `src.length` elements long). */
export function encodeFloats(dtype: 'F32' | 'F16' | 'BF16', src: Float32Array, bytes: Uint8Array): void {
  const n = src.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, n * FLOAT_DTYPE_BYTES[dtype]);
  if (dtype === 'F32') {
    if (LITTLE_ENDIAN) bytes.set(new Uint8Array(src.buffer, src.byteOffset, n * 4));
    else for (let i = 0; i < n; i++) view.setFloat32(i * 4, src[i] as number, true);
    return;
  }
  const halves =
    LITTLE_ENDIAN && bytes.byteOffset % 2 === 0
      ? new Uint16Array(bytes.buffer, bytes.byteOffset, n)
      : undefined;
  if (dtype === 'BF16') {
    const bits = new Uint32Array(src.buffer, src.byteOffset, n);
    if (halves) for (let i = 0; i < n; i++) halves[i] = bf16FromFloat32Bits(bits[i] as number);
    else for (let i = 0; i < n; i++) view.setUint16(i * 2, bf16FromFloat32Bits(bits[i] as number), true);
    return;
  }
  if (halves) for (let i = 0; i < n; i++) halves[i] = f16FromFloat32(src[i] as number);
  else for (let i = 0; i < n; i++) view.setUint16(i * 2, f16FromFloat32(src[i] as number), true);
}
