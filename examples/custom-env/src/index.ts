export { envDefinition } from './definition';
export {
  createHigherLower,
  type HigherLowerOptions,
  type HigherLowerState,
  higherLowerGame,
} from './higher-lower';
