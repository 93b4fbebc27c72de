/** A machine description for tests of what records and reports say about machines. */

import type { MachineV1 } from '../machine';

/** A 2-core x86 Linux machine with AVX2, as `describeMachine({ runtime })` describes one. */
export const EXAMPLE_MACHINE = {
  cpu: 'AMD EPYC 7763 64-Core Processor',
  cores: 2,
  memoryGiB: 8,
  simd: ['sse4_2', 'avx', 'avx2', 'fma'],
  platform: 'linux-x64',
  node: 'v22.12.0',
  runtime: { 'onnxruntime-node': '1.30.0' },
} as const satisfies MachineV1;
