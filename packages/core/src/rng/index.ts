export { createRng, type Rng, type RngState, restoreRng } from './rng';
