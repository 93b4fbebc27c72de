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
} from './registry';
