export {
  type DescribeMachineOptions,
  describeMachine,
  type MachineV1,
  machineLabel,
  SIMD_FLAGS,
  simdFlagsOf,
} from './machine';
