export {
  createCliOpponent,
  createEnv,
  ENV_FACTORIES,
  ENV_IDS,
  knownOpponentIds,
  type MatchGame,
  matchGame,
  OPPONENT_ENV_IDS,
  solvableGame,
} from './registry';
