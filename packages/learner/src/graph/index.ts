export { type GradientsOptions, gradients, unbroadcast, VJP_RULES, type VjpRule } from './autodiff';
export {
  checkGradients,
  type GradcheckCase,
  type GradcheckFeed,
  type GradcheckOptions,
  type GradcheckResult,
  randomFloat64,
} from './gradcheck';
export {
  type AttrValue,
  type ConstantData,
  type CreateGraphOptions,
  type CustomGroup,
  createGraph,
  type GemmOptions,
  type Graph,
  type GraphNode,
  type VjpFn,
} from './graph';
export { OPSET, pruneNodes, type SerializeOptions, serializeGraph } from './serialize';
export {
  broadcastShapes,
  type DType,
  type FloatDType,
  isFloat,
  type Shape,
  sizeOf,
  type Tensor,
} from './tensor';
