import { describe, expect, it } from 'vitest';
import { EXAMPLE_MACHINE } from '../testing/machine-fixtures';
import { describeMachine, machineLabel, SIMD_FLAGS, simdFlagsOf } from './machine';

describe('describeMachine', () => {
  it('describes this machine: CPU, cores, memory, platform, Node, and SIMD flags from the known list', () => {
    const machine = describeMachine();
    expect(machine.cpu).toMatch(/\S/);
    expect(Number.isInteger(machine.cores) && machine.cores >= 1).toBe(true);
    expect(Number.isInteger(machine.memoryGiB) && machine.memoryGiB >= 0).toBe(true);
    expect(machine.platform).toBe(`${process.platform}-${process.arch}`);
    expect(machine.node).toBe(process.version);
    expect(machine.runtime).toBeUndefined();
    if (process.platform === 'linux') {
      expect(machine.simd).toBeDefined();
      for (const flag of machine.simd ?? []) expect(SIMD_FLAGS).toContain(flag);
      // Listed in the order of SIMD_FLAGS, each once.
      const order = (machine.simd ?? []).map((f) => SIMD_FLAGS.indexOf(f));
      expect(order).toEqual([...new Set(order)].sort((a, b) => a - b));
    } else {
      expect(machine.simd).toBeUndefined();
    }
  });

  it("records the caller's runtimes, and none when it names none", () => {
    expect(describeMachine({ runtime: { 'onnxruntime-node': '1.30.0' } }).runtime).toEqual({
      'onnxruntime-node': '1.30.0',
    });
    expect('runtime' in describeMachine({ runtime: {} })).toBe(false);
  });

  it('keeps the known SIMD flags of an x86 flags line or an Arm Features line', () => {
    const x86 = [
      'processor\t: 0',
      'model name\t: Example CPU',
      'flags\t\t: fpu vme sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c avx2 avx512f avx512bw avx512_vnni hypervisor',
      '',
      'processor\t: 1',
      'flags\t\t: fpu sse2',
    ].join('\n');
    expect(simdFlagsOf(x86)).toEqual([
      'sse4_1',
      'sse4_2',
      'avx',
      'avx2',
      'fma',
      'f16c',
      'avx512f',
      'avx512bw',
      'avx512_vnni',
    ]);
    expect(simdFlagsOf('Features\t: fp asimd evtstrm aes asimdhp asimddp sve i8mm\n')).toEqual([
      'asimd',
      'asimdhp',
      'asimddp',
      'sve',
      'i8mm',
    ]);
    // A flag is a whole word: `avx512` alone, or `sse4a`, is none of the listed ones.
    expect(simdFlagsOf('flags : sse4a avx512 avx512vbmi\n')).toEqual([]);
    expect(simdFlagsOf('processor : 0\n')).toEqual([]);
  });
});

describe('machineLabel', () => {
  it('prints a description on one line', () => {
    expect(machineLabel(EXAMPLE_MACHINE)).toBe(
      'AMD EPYC 7763 64-Core Processor, 2 cores, 8 GiB, SIMD sse4_2 avx avx2 fma, linux-x64, Node v22.12.0, onnxruntime-node 1.30.0',
    );
  });

  it('prints descriptions written before simd and runtime existed, with their other fields', () => {
    expect(
      machineLabel({
        cpu: 'Intel(R) Xeon(R)',
        cores: 4,
        memoryGiB: 16,
        node: 'v20.19.0',
        platform: 'linux-x64',
        commit: '0123abc',
      }),
    ).toBe('Intel(R) Xeon(R), 4 cores, 16 GiB, linux-x64, Node v20.19.0, commit 0123abc');
    expect(machineLabel(null)).toBe('not recorded');
    expect(machineLabel({ cpu: 3, simd: [] })).toBe('SIMD none of the listed');
  });
});
