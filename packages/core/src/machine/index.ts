export {
  type CodeV1,
  codeKey,
  codeLabel,
  codeNotes,
  type DescribeCodeOptions,
  describeCode,
  gitStateOf,
  type NoCommitReason,
  packageVersions,
} from './code';
export {
  type DescribeMachineOptions,
  describeMachine,
  type MachineV1,
  machineLabel,
  SIMD_FLAGS,
  simdFlagsOf,
} from './machine';
