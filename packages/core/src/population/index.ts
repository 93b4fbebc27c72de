export {
  assignOpponents,
  createPopulation,
  fixedPopulation,
  type PopulationEntry,
  type PopulationMode,
  type PopulationV1,
} from './population';
