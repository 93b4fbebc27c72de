export { spanChunks } from './batching';
export { type MemoryLimits, memoryLimitsOf, REFERENCE_MEMORY_BUDGET } from './memory-budget';
export { createOnnxLearner, type OnnxLearner, type OnnxLearnerOptions } from './onnx-learner';
export { fitsSegmentRun, type SegmentRunShape } from './segments';
