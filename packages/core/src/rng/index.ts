export { createRng, type Rng, type RngState, restoreRng } from './rng';
export { samplingWeights } from './sampling-weights';
