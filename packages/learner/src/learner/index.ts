export { createOnnxLearner, type OnnxLearner, type OnnxLearnerOptions } from './onnx-learner';
