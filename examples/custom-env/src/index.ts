export { envDefinition } from './definition.js';
export {
  createHigherLower,
  type HigherLowerOptions,
  type HigherLowerState,
  higherLowerGame,
} from './higher-lower.js';
