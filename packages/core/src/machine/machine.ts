/**
 * What machine a process runs on, as records name it: runs on the same config and seed give different
 * numbers on different CPUs (float reductions follow the SIMD instructions the numeric runtime picks), so
 * a reader needs the machine to tell whether two records are comparable. `describeMachine` is the one
 * description (a run directory's `machine.json`, `mage experiment`'s `experiment.json`); `machineLabel`
 * prints one, including descriptions written before some fields existed.
 */

import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/**
 * The CPU flags that change which float kernels run, as Linux names them in `/proc/cpuinfo` (`flags` on
 * x86, `Features` on Arm), in the order a description lists them.
 */
export const SIMD_FLAGS: readonly string[] = [
  // x86: vector widths, fused multiply-add, and the dot-product and bf16/fp16 extensions.
  'sse4_1',
  'sse4_2',
  'avx',
  'avx2',
  'fma',
  'f16c',
  'avx512f',
  'avx512dq',
  'avx512bw',
  'avx512vl',
  'avx512_vnni',
  'avx512_bf16',
  'avx512_fp16',
  'avx_vnni',
  'amx_tile',
  'amx_bf16',
  'amx_int8',
  // Arm: NEON, its half-precision and dot-product forms, SVE and the bf16/int8 matrix extensions.
  'asimd',
  'asimdhp',
  'asimddp',
  'sve',
  'sve2',
  'bf16',
  'i8mm',
];

/** A description of the machine a process ran on. */
export interface MachineV1 {
  /** The CPU model as the OS reports it (`unknown` when it reports none). */
  readonly cpu: string;
  /** Logical cores. */
  readonly cores: number;
  /** Total memory, rounded to whole GiB. */
  readonly memoryGiB: number;
  /**
   * Which of `SIMD_FLAGS` the CPU reports, in that order. Only where it is cheap to know (Linux's
   * `/proc/cpuinfo`); absent elsewhere.
   */
  readonly simd?: readonly string[];
  /** `process.platform`-`process.arch`, e.g. `linux-x64`. */
  readonly platform: string;
  /** The Node.js version, e.g. `v22.12.0`. */
  readonly node: string;
  /**
   * Versions of the numeric runtimes the process computes with (`{ "onnxruntime-node": "1.30.0" }`), as
   * the caller names them: core does not know the learner's.
   */
  readonly runtime?: Readonly<Record<string, string>>;
}

/** What the caller adds to the description. */
export interface DescribeMachineOptions {
  /** See `MachineV1.runtime`; empty or absent records no runtime. */
  readonly runtime?: Readonly<Record<string, string>>;
}

/**
 * The `SIMD_FLAGS` a `/proc/cpuinfo` text reports, from its first `flags` (x86) or `Features` (Arm) line;
 * empty when it has neither.
 */
export function simdFlagsOf(cpuinfo: string): string[] {
  const line = /^(?:flags|Features)\s*:(.*)$/m.exec(cpuinfo);
  if (!line) return [];
  const present = new Set((line[1] ?? '').trim().split(/\s+/));
  return SIMD_FLAGS.filter((flag) => present.has(flag));
}

/** The CPU's `SIMD_FLAGS` on Linux; undefined elsewhere or when `/proc/cpuinfo` does not read. */
function simdFlags(): string[] | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return simdFlagsOf(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return undefined;
  }
}

/** Describes this machine (CPU, cores, memory, SIMD flags, platform, Node) and the caller's runtimes. */
export function describeMachine(options: DescribeMachineOptions = {}): MachineV1 {
  const cpu = cpus();
  const simd = simdFlags();
  const runtime = options.runtime ?? {};
  return {
    cpu: cpu[0]?.model.trim() || 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    ...(simd === undefined ? {} : { simd }),
    platform: `${process.platform}-${process.arch}`,
    node: process.version,
    ...(Object.keys(runtime).length > 0 ? { runtime: { ...runtime } } : {}),
  };
}

/**
 * One line for a machine description: `AMD EPYC 7763 64-Core Processor, 2 cores, 8 GiB, SIMD sse4_2 avx
 * avx2 fma, linux-x64, Node v22.12.0, onnxruntime-node 1.30.0`. It takes what a record holds: fields of
 * the wrong type or missing (descriptions written before `simd` and `runtime` existed) are left out, and
 * fields it does not know are listed last as `name value`.
 */
export function machineLabel(machine: unknown): string {
  const m = (typeof machine === 'object' && machine !== null ? machine : {}) as Record<string, unknown>;
  const text = (v: unknown): v is string => typeof v === 'string' && v !== '';
  const count = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  const parts: string[] = [];
  if (text(m.cpu)) parts.push(m.cpu);
  if (count(m.cores)) parts.push(`${m.cores} cores`);
  if (count(m.memoryGiB)) parts.push(`${m.memoryGiB} GiB`);
  if (Array.isArray(m.simd)) {
    const flags = m.simd.filter(text);
    parts.push(flags.length > 0 ? `SIMD ${flags.join(' ')}` : 'SIMD none of the listed');
  }
  if (text(m.platform)) parts.push(m.platform);
  if (text(m.node)) parts.push(`Node ${m.node}`);
  if (typeof m.runtime === 'object' && m.runtime !== null) {
    for (const [name, version] of Object.entries(m.runtime))
      if (text(version)) parts.push(`${name} ${version}`);
  }
  const known = new Set(['cpu', 'cores', 'memoryGiB', 'simd', 'platform', 'node', 'runtime']);
  for (const [key, value] of Object.entries(m)) {
    if (known.has(key) || value === null || typeof value === 'object') continue;
    parts.push(`${key} ${String(value)}`);
  }
  return parts.length > 0 ? parts.join(', ') : 'not recorded';
}
