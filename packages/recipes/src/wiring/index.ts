export {
  checkOpponentId,
  createEnvById,
  createMemoryOfKind,
  createPopulationFor,
  MEMORY_KINDS,
  type MemoryKind,
  type MethodMemoryOptions,
  opponentFactory,
  type PopulationChoice,
  populationNames,
  RECIPE_ENV_IDS,
  type RecipeEnvId,
} from './registry';
