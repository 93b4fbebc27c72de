/**
 * safetensors: an 8-byte little-endian header length, a JSON header
 * `{ name: { dtype, shape, data_offsets: [begin, end] }, __metadata__?: { k: v } }`, then raw data.
 * The parser treats files as untrusted: every length and offset is checked against the actual bytes
 * before anything is sliced, and nothing is allocated from a size the header claims.
 */

import { open } from 'node:fs/promises';
import { CheckpointError } from '@mage-rl/core';

export type SafetensorsDType = 'F32' | 'F16' | 'BF16' | 'F64' | 'I64' | 'I32' | 'U8' | 'BOOL';

const DTYPE_BYTES: Readonly<Record<SafetensorsDType, number>> = {
  F32: 4,
  F16: 2,
  BF16: 2,
  F64: 8,
  I64: 8,
  I32: 4,
  U8: 1,
  BOOL: 1,
};

/** Headers larger than this are refused (the format's reference implementation uses 100 MB). */
export const MAX_HEADER_BYTES = 100_000_000;

export interface SafetensorsEntry {
  readonly dtype: SafetensorsDType;
  readonly shape: readonly number[];
  /** The tensor's bytes: a view into the parsed bytes (no copy), or its own buffer when read from a file. */
  readonly bytes: Uint8Array;
}

export interface SafetensorsFile {
  readonly tensors: ReadonlyMap<string, SafetensorsEntry>;
  readonly metadata: Readonly<Record<string, string>>;
}

function fail(message: string, context: Record<string, unknown> = {}): never {
  throw new CheckpointError(`Invalid safetensors file: ${message}`, { code: 'MODEL_FORMAT', context });
}

const isDType = (x: unknown): x is SafetensorsDType => typeof x === 'string' && x in DTYPE_BYTES;

/** A list of non-negative safe integers (a shape). */
const isSizes = (x: unknown): x is number[] =>
  Array.isArray(x) && x.every((d) => Number.isSafeInteger(d) && d >= 0);

/** `[begin, end]` byte offsets with begin ≤ end. */
function isByteRange(x: unknown): x is [number, number] {
  if (!isSizes(x)) return false;
  const [begin, end, ...rest] = x;
  return begin !== undefined && end !== undefined && rest.length === 0 && begin <= end;
}

/**
 * Checks the header entry of tensor `name`: a known dtype, a shape, and byte offsets inside a data
 * section of `dataLen` bytes that match the shape's size.
 */
function parseEntryHeader(
  raw: unknown,
  source: string,
  name: string,
  dataLen: number,
): { dtype: SafetensorsDType; shape: number[]; begin: number; end: number } {
  if (typeof raw !== 'object' || raw === null) fail(`${source}: entry '${name}' is not an object.`);
  const { dtype, shape, data_offsets: offsets } = raw as Record<string, unknown>;
  const tensor = `${source}: tensor '${name}'`;
  if (!isDType(dtype)) fail(`${tensor} has unsupported dtype ${JSON.stringify(dtype)}.`);
  if (!isSizes(shape)) fail(`${tensor} has a bad shape.`);
  if (!isByteRange(offsets)) fail(`${tensor} has bad data_offsets.`);
  const [begin, end] = offsets;
  if (end > dataLen) {
    fail(`${tensor} ends at byte ${end} of a ${dataLen}-byte data section (truncated file?).`, {
      source,
      tensor: name,
    });
  }
  let numel = 1;
  for (const d of shape) {
    numel *= d;
    if (numel > dataLen) break;
  }
  if (numel * DTYPE_BYTES[dtype] !== end - begin) {
    fail(`${tensor} has ${end - begin} bytes for shape [${shape.join(', ')}] ${dtype}.`);
  }
  return { dtype, shape: [...shape], begin, end };
}

/** The header's byte length, checked against a file of `fileLength` bytes whose first 8 are `first`. */
function headerLength(first: Uint8Array, fileLength: number, source: string): number {
  if (fileLength < 8) fail(`${source} is ${fileLength} bytes, shorter than the 8-byte header length.`);
  const headerLen64 = new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true);
  if (headerLen64 > BigInt(Math.min(MAX_HEADER_BYTES, fileLength - 8))) {
    fail(
      `${source} declares a ${headerLen64}-byte header but has ${fileLength - 8} bytes after the length.`,
      {
        source,
      },
    );
  }
  return Number(headerLen64);
}

/** A tensor's place in the data section, as its header entry gives it (checked). */
interface TensorRange {
  readonly dtype: SafetensorsDType;
  readonly shape: readonly number[];
  readonly begin: number;
  readonly end: number;
}

/** The header JSON of a file whose data section is `dataLen` bytes: every entry checked, no overlaps. */
function parseHeader(
  json: Uint8Array,
  dataLen: number,
  source: string,
): { ranges: Map<string, TensorRange>; metadata: Record<string, string> } {
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch (cause) {
    throw new CheckpointError(`Invalid safetensors file: ${source} has a header that is not UTF-8 JSON.`, {
      code: 'MODEL_FORMAT',
      cause,
      context: { source },
    });
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    fail(`${source}: header is not an object.`);
  const ranges = new Map<string, TensorRange>();
  let metadata: Record<string, string> = {};
  for (const [name, raw] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        fail(`${source}: __metadata__ is not an object.`);
      const md: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
        if (typeof v !== 'string') fail(`${source}: __metadata__.${k} is not a string.`);
        md[k] = v;
      }
      metadata = md;
      continue;
    }
    ranges.set(name, parseEntryHeader(raw, source, name, dataLen));
  }
  const sorted = [...ranges].sort((a, b) => a[1].begin - b[1].begin);
  for (let i = 1; i < sorted.length; i++) {
    const [prevName, prev] = sorted[i - 1]!;
    const [name, cur] = sorted[i]!;
    if (cur.begin < prev.end) fail(`${source}: tensors '${prevName}' and '${name}' overlap.`);
  }
  return { ranges, metadata };
}

export function parseSafetensors(bytes: Uint8Array, source = '<bytes>'): SafetensorsFile {
  const headerLen = headerLength(bytes, bytes.length, source);
  const dataStart = 8 + headerLen;
  const { ranges, metadata } = parseHeader(bytes.subarray(8, dataStart), bytes.length - dataStart, source);
  const tensors = new Map<string, SafetensorsEntry>();
  for (const [name, { dtype, shape, begin, end }] of ranges) {
    tensors.set(name, { dtype, shape, bytes: bytes.subarray(dataStart + begin, dataStart + end) });
  }
  return { tensors, metadata };
}

/** Reads are split into chunks of at most this many bytes (one `read` call takes at most 2 GiB). */
const READ_CHUNK_BYTES = 2 ** 30;

/**
 * Reads a safetensors file tensor by tensor, each into its own buffer, so a file of any size loads
 * (Node's `readFile` refuses files above 2 GiB, and one buffer for the whole file doubles the peak).
 * Checked as `parseSafetensors` checks bytes.
 */
export async function readSafetensorsFile(path: string): Promise<SafetensorsFile> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const readAt = async (position: number, length: number): Promise<Uint8Array> => {
      const out = new Uint8Array(length);
      for (let done = 0; done < length; ) {
        const { bytesRead } = await handle.read(
          out,
          done,
          Math.min(READ_CHUNK_BYTES, length - done),
          position + done,
        );
        if (bytesRead === 0) fail(`${path} ended while reading (changed on disk?).`, { source: path });
        done += bytesRead;
      }
      return out;
    };
    const headerLen = headerLength(await readAt(0, Math.min(8, size)), size, path);
    const dataStart = 8 + headerLen;
    const { ranges, metadata } = parseHeader(await readAt(8, headerLen), size - dataStart, path);
    const tensors = new Map<string, SafetensorsEntry>();
    for (const [name, { dtype, shape, begin, end }] of ranges) {
      tensors.set(name, { dtype, shape, bytes: await readAt(dataStart + begin, end - begin) });
    }
    return { tensors, metadata };
  } finally {
    await handle.close();
  }
}

function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (f / 1024);
  if (e === 31) return f === 0 ? s * Number.POSITIVE_INFINITY : Number.NaN;
  return s * 2 ** (e - 15) * (1 + f / 1024);
}

/** Converts a floating-point entry (F32, F16, BF16, F64) to float32. */
export function toFloat32(entry: SafetensorsEntry, name = 'tensor'): Float32Array {
  const b = entry.bytes;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  switch (entry.dtype) {
    case 'F32': {
      const out = new Float32Array(b.length / 4);
      for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
      return out;
    }
    case 'F64': {
      const out = new Float32Array(b.length / 8);
      for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(i * 8, true);
      return out;
    }
    case 'F16': {
      const out = new Float32Array(b.length / 2);
      for (let i = 0; i < out.length; i++) out[i] = f16ToF32(view.getUint16(i * 2, true));
      return out;
    }
    case 'BF16': {
      const out = new Float32Array(b.length / 2);
      const u32 = new Uint32Array(out.buffer);
      for (let i = 0; i < out.length; i++) u32[i] = view.getUint16(i * 2, true) << 16;
      return out;
    }
    default:
      throw new CheckpointError(`Tensor '${name}' has dtype ${entry.dtype}, not a floating-point type.`, {
        code: 'MODEL_FORMAT',
      });
  }
}

export interface TensorToWrite {
  readonly data: Float32Array;
  readonly shape: readonly number[];
}

/** Serialises float32 tensors (sorted by name, 8-byte aligned header). */
export function serializeSafetensors(
  tensors: ReadonlyMap<string, TensorToWrite>,
  metadata: Readonly<Record<string, string>> = {},
): Uint8Array {
  const sorted = [...tensors].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  let offset = 0;
  for (const [name, t] of sorted) {
    const n = t.shape.reduce((p, d) => p * d, 1);
    if (n !== t.data.length) {
      throw new CheckpointError(
        `Tensor '${name}' has ${t.data.length} values for shape [${t.shape.join(', ')}].`,
      );
    }
    header[name] = { dtype: 'F32', shape: [...t.shape], data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) {
    const p = new Uint8Array(padded).fill(0x20);
    p.set(json);
    json = p;
  }
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let pos = 8 + json.length;
  const le = new DataView(out.buffer);
  for (const [, { data }] of sorted) {
    const at = pos;
    data.forEach((v, i) => {
      le.setFloat32(at + i * 4, v, true);
    });
    pos += data.byteLength;
  }
  return out;
}
