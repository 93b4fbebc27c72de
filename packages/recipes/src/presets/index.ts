export { formatByteSize, memoryBudgetOf, parseByteSize } from './byte-size';
export { configErrorFromZod } from './config-errors';
export { ENV_DEFAULTS } from './env-defaults';
export { DEFAULT_RUN_PRESET, defaultPresetOf, recipeLayerOf } from './env-recipe';
export { METHOD_IDS, METHODS, type MethodId, type MethodPreset } from './methods';
export { type AblationSwitches, overrideAt, switchOverrides } from './overrides';
export {
  mergeConfig,
  methodLayer,
  presetValuesFor,
  type ResolveTrainConfigOptions,
  resolveTrainConfig,
} from './resolve-config';
export { RUN_PRESET_IDS, RUN_PRESETS, type RunPresetId, type RunPresetValues } from './run-presets';
export {
  CONFIG_LIMITS,
  type DeepPartial,
  type TrainConfig,
  type TrainConfigInput,
  trainConfigSchema,
} from './schema';
export {
  type AdvantageFn,
  advantageOptionsOf,
  makeAdvantageFn,
  makeLossFn,
  memoryLayoutOf,
  memoryOf,
  memoryReflects,
  populationOf,
  rowGroupingOf,
} from './wiring';
