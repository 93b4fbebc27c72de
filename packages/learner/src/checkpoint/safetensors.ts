/**
 * safetensors: an 8-byte little-endian header length, a JSON header
 * `{ name: { dtype, shape, data_offsets: [begin, end] }, __metadata__?: { k: v } }`, then raw data.
 * The parser treats files as untrusted: every length and offset is checked against the actual bytes
 * before anything is sliced, and nothing is allocated from a size the header claims.
 */

import { type FileHandle, open } from 'node:fs/promises';
import { CheckpointError } from '@mage-rl/core';
import {
  decodeFloats,
  encodeFloats,
  FLOAT_DTYPE_BYTES,
  type FloatDType,
  LITTLE_ENDIAN,
} from './float-formats';

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

/** The largest single `read`/`write` call (one call takes at most 2 GiB). */
const IO_CALL_BYTES = 2 ** 30;

/**
 * Default largest chunk of a ranged read or write: F32 data is read straight into (or written
 * straight from) the destination array in chunks of this size; other dtypes go through a scratch
 * buffer of this size, converted chunk by chunk.
 */
export const DEFAULT_CHUNK_BYTES = 64 * 2 ** 20;

export interface SafetensorsIoOptions {
  /** Largest chunk of one read or write, in bytes (default `DEFAULT_CHUNK_BYTES`; at least one element). */
  readonly maxChunkBytes?: number;
}

/** A checked header of an open file: tensor ranges, metadata and where the data section starts. */
interface OpenedSafetensors {
  readonly ranges: Map<string, TensorRange>;
  readonly metadata: Record<string, string>;
  readonly dataStart: number;
}

/** Reads exactly `out.length` bytes at `position`, in calls of at most `chunk` bytes. */
async function readExactly(
  handle: FileHandle,
  path: string,
  out: Uint8Array,
  position: number,
  chunk = IO_CALL_BYTES,
): Promise<void> {
  for (let done = 0; done < out.length; ) {
    const { bytesRead } = await handle.read(out, done, Math.min(chunk, out.length - done), position + done);
    if (bytesRead === 0) fail(`${path} ended while reading (changed on disk?).`, { source: path });
    done += bytesRead;
  }
}

/** The 8-byte length and the JSON header of an open file, checked as `parseSafetensors` checks bytes. */
async function readHeader(handle: FileHandle, path: string): Promise<OpenedSafetensors> {
  const size = (await handle.stat()).size;
  const first = new Uint8Array(Math.min(8, size));
  await readExactly(handle, path, first, 0);
  const headerLen = headerLength(first, size, path);
  const json = new Uint8Array(headerLen);
  await readExactly(handle, path, json, 8);
  const dataStart = 8 + headerLen;
  const { ranges, metadata } = parseHeader(json, size - dataStart, path);
  return { ranges, metadata, dataStart };
}

/**
 * Reads a safetensors file tensor by tensor, each into its own buffer, so a file of any size loads
 * (Node's `readFile` refuses files above 2 GiB, and one buffer for the whole file doubles the peak).
 * Checked as `parseSafetensors` checks bytes.
 */
export async function readSafetensorsFile(path: string): Promise<SafetensorsFile> {
  const handle = await open(path, 'r');
  try {
    const { ranges, metadata, dataStart } = await readHeader(handle, path);
    const tensors = new Map<string, SafetensorsEntry>();
    for (const [name, { dtype, shape, begin, end }] of ranges) {
      const bytes = new Uint8Array(end - begin);
      await readExactly(handle, path, bytes, dataStart + begin);
      tensors.set(name, { dtype, shape, bytes });
    }
    return { tensors, metadata };
  } finally {
    await handle.close();
  }
}

/** A floating-point tensor read as float32, with the dtype the file stores it in. */
export interface Float32Tensor {
  readonly data: Float32Array;
  readonly shape: readonly number[];
  readonly dtype: SafetensorsDType;
}

export interface ReadFloat32Options extends SafetensorsIoOptions {
  /**
   * Which tensors to read (default all), given each header entry before anything is allocated for it;
   * it may throw to refuse the file (a shape the caller cannot use).
   */
  readonly select?: (name: string, info: { dtype: SafetensorsDType; shape: readonly number[] }) => boolean;
}

/** Element size of `dtype` when it is a floating-point type, else a `CheckpointError` naming the tensor. */
function floatBytes(dtype: SafetensorsDType, name: string, path: string): number {
  if (dtype === 'F32' || dtype === 'F16' || dtype === 'BF16' || dtype === 'F64')
    return FLOAT_DTYPE_BYTES[dtype];
  throw new CheckpointError(`${path}: tensor '${name}' has dtype ${dtype}, not a floating-point type.`, {
    code: 'MODEL_FORMAT',
    context: { path, tensor: name },
  });
}

/**
 * Reads the floating-point tensors of a safetensors file of any size as float32 with ranged reads:
 * the header first, then each selected tensor straight into its own `Float32Array` (F32 on a
 * little-endian host) or through one scratch buffer of at most `maxChunkBytes`, converted chunk by
 * chunk (BF16, F16, F64). No buffer of the whole file exists; the peak is the tensors plus one chunk.
 */
export async function readSafetensorsFloat32(
  path: string,
  options: ReadFloat32Options = {},
): Promise<{ tensors: Map<string, Float32Tensor>; metadata: Record<string, string> }> {
  const maxChunk = Math.max(8, Math.floor(options.maxChunkBytes ?? DEFAULT_CHUNK_BYTES));
  const handle = await open(path, 'r');
  try {
    const { ranges, metadata, dataStart } = await readHeader(handle, path);
    const tensors = new Map<string, Float32Tensor>();
    let scratch: Uint8Array | undefined;
    for (const [name, { dtype, shape, begin, end }] of ranges) {
      if (options.select && !options.select(name, { dtype, shape })) continue;
      const size = floatBytes(dtype, name, path);
      const numel = (end - begin) / size;
      const data = new Float32Array(numel);
      const position = dataStart + begin;
      if (dtype === 'F32' && LITTLE_ENDIAN) {
        await readExactly(handle, path, new Uint8Array(data.buffer), position, maxChunk);
      } else {
        // Whole elements per chunk, at least one.
        const chunkElems = Math.max(1, Math.floor(maxChunk / size));
        const need = Math.min(numel, chunkElems) * size;
        if (scratch === undefined || scratch.length < need) scratch = new Uint8Array(need);
        for (let at = 0; at < numel; at += chunkElems) {
          const n = Math.min(chunkElems, numel - at);
          const bytes = scratch.subarray(0, n * size);
          await readExactly(handle, path, bytes, position + at * size);
          decodeFloats(dtype as FloatDType, bytes, data.subarray(at, at + n));
        }
      }
      tensors.set(name, { data, shape, dtype });
    }
    return { tensors, metadata };
  } finally {
    await handle.close();
  }
}

/** Converts a floating-point entry (F32, F16, BF16, F64) to float32. */
export function toFloat32(entry: SafetensorsEntry, name = 'tensor'): Float32Array {
  const { dtype, bytes } = entry;
  if (dtype !== 'F32' && dtype !== 'F16' && dtype !== 'BF16' && dtype !== 'F64') {
    throw new CheckpointError(`Tensor '${name}' has dtype ${dtype}, not a floating-point type.`, {
      code: 'MODEL_FORMAT',
    });
  }
  const out = new Float32Array(bytes.length / FLOAT_DTYPE_BYTES[dtype]);
  decodeFloats(dtype, bytes, out);
  return out;
}

export interface TensorToWrite {
  readonly data: Float32Array;
  readonly shape: readonly number[];
}

/** The dtypes float32 tensors can be written as. */
export type WritableDType = 'F32' | 'F16' | 'BF16';

export interface WriteSafetensorsOptions extends SafetensorsIoOptions {
  /** The stored dtype (default F32); BF16 and F16 round to nearest even. */
  readonly dtype?: WritableDType;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Header bytes (space-padded to a multiple of 8) and the tensors sorted by name, with their byte sizes. */
function layoutOf(
  tensors: ReadonlyMap<string, TensorToWrite>,
  dtype: WritableDType,
  metadata: Readonly<Record<string, string>>,
): { json: Uint8Array; sorted: [string, TensorToWrite][]; dataBytes: number } {
  const sorted = [...tensors].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  const size = FLOAT_DTYPE_BYTES[dtype];
  let offset = 0;
  for (const [name, t] of sorted) {
    const n = t.shape.reduce((p, d) => p * d, 1);
    if (n !== t.data.length) {
      throw new CheckpointError(
        `Tensor '${name}' has ${t.data.length} values for shape [${t.shape.join(', ')}].`,
      );
    }
    header[name] = { dtype, shape: [...t.shape], data_offsets: [offset, offset + n * size] };
    offset += n * size;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) {
    const p = new Uint8Array(padded).fill(0x20);
    p.set(json);
    json = p;
  }
  return { json, sorted, dataBytes: offset };
}

/** The byte size of the file `writeSafetensorsFile` writes for these tensors. */
export function safetensorsFileBytes(
  tensors: ReadonlyMap<string, TensorToWrite>,
  options: Pick<WriteSafetensorsOptions, 'dtype' | 'metadata'> = {},
): number {
  const { json, dataBytes } = layoutOf(tensors, options.dtype ?? 'F32', options.metadata ?? {});
  return 8 + json.length + dataBytes;
}

/** Serialises float32 tensors into one buffer (sorted by name, 8-byte aligned header); small files only. */
export function serializeSafetensors(
  tensors: ReadonlyMap<string, TensorToWrite>,
  metadata: Readonly<Record<string, string>> = {},
  dtype: WritableDType = 'F32',
): Uint8Array {
  const { json, sorted, dataBytes } = layoutOf(tensors, dtype, metadata);
  const out = new Uint8Array(8 + json.length + dataBytes);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let pos = 8 + json.length;
  const size = FLOAT_DTYPE_BYTES[dtype];
  for (const [, { data }] of sorted) {
    encodeFloats(dtype, data, out.subarray(pos, pos + data.length * size));
    pos += data.length * size;
  }
  return out;
}

/**
 * Writes float32 tensors as a safetensors file of any size (what `serializeSafetensors` would give)
 * without a buffer of the whole file: the header, then each tensor in chunks of at most
 * `maxChunkBytes` (F32 straight from the tensor on a little-endian host, other dtypes converted
 * through one scratch buffer). The file is fsynced before it is closed.
 */
export async function writeSafetensorsFile(
  path: string,
  tensors: ReadonlyMap<string, TensorToWrite>,
  options: WriteSafetensorsOptions = {},
): Promise<void> {
  const dtype = options.dtype ?? 'F32';
  const { json, sorted } = layoutOf(tensors, dtype, options.metadata ?? {});
  const maxChunk = Math.max(8, Math.floor(options.maxChunkBytes ?? DEFAULT_CHUNK_BYTES));
  const size = FLOAT_DTYPE_BYTES[dtype];
  const handle = await open(path, 'w');
  try {
    let position = 0;
    const write = async (bytes: Uint8Array): Promise<void> => {
      for (let done = 0; done < bytes.length; ) {
        const n = Math.min(maxChunk, IO_CALL_BYTES, bytes.length - done);
        const { bytesWritten } = await handle.write(bytes, done, n, position);
        done += bytesWritten;
        position += bytesWritten;
      }
    };
    const head = new Uint8Array(8 + json.length);
    new DataView(head.buffer).setBigUint64(0, BigInt(json.length), true);
    head.set(json, 8);
    await write(head);
    const chunkElems = Math.max(1, Math.floor(maxChunk / size));
    let scratch: Uint8Array | undefined;
    for (const [, { data }] of sorted) {
      if (dtype === 'F32' && LITTLE_ENDIAN) {
        await write(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        continue;
      }
      const need = Math.min(data.length, chunkElems) * size;
      if (scratch === undefined || scratch.length < need) scratch = new Uint8Array(need);
      for (let at = 0; at < data.length; at += chunkElems) {
        const n = Math.min(chunkElems, data.length - at);
        const bytes = scratch.subarray(0, n * size);
        encodeFloats(dtype, data.subarray(at, at + n), bytes);
        await write(bytes);
      }
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}
