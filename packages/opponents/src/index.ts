export {
  type AdaptiveAgent,
  type AdaptiveCeilingOptions,
  type AdaptiveCeilingResult,
  type AdaptiveOpponent,
  type AdaptivePlanner,
  adaptiveCeiling,
  createAdaptiveAgent,
} from './best-response/adaptive';
export {
  type BestResponseResult,
  bestResponse,
  expectedReturns,
  exploitability,
  nashConv,
  type ProfileBestResponse,
  profileBestResponse,
  profileNashConv,
  profileValues,
  type StrategyQuery,
} from './best-response/best-response';
export {
  type DeterministicResponseQuery,
  deterministicBestResponse,
} from './best-response/deterministic';
export {
  ADAPTIVE_PLANNERS,
  type AdaptationCeilingTable,
  type AdaptationCeilingTableOptions,
  ANALYSIS_SEATS,
  type AnalysisSeat,
  adaptationCeilingTable,
  type SeatBestResponse,
  seatBestResponse,
} from './best-response/seat-analysis';
export {
  CFR_ALGORITHMS,
  type CfrAlgorithm,
  type CfrSolver,
  type CfrSolverOptions,
  createCfrSolver,
} from './cfr/cfr';
export { type SolveOptions, type SolveResult, solveGame } from './cfr/solve';
export {
  type BuildGameTreeOptions,
  buildGameTree,
  type GameTree,
  gameTreeOf,
  NODE_CHANCE,
  NODE_PLAYER,
  NODE_TERMINAL,
} from './game-tree/game-tree';
export {
  facingBet,
  KUHN_ARCHETYPES,
  type KuhnArchetype,
  kuhnArchetypeOpponent,
  kuhnArchetypePolicy,
  ownKuhnCard,
} from './kuhn/archetypes';
export {
  KUHN_CFR_DEFAULT_ITERATIONS,
  type KuhnCfrOpponentOptions,
  kuhnAverageStrategy,
  kuhnCfrOpponent,
  kuhnCfrStrategy,
} from './kuhn/cfr-opponents';
export {
  MATCH_SEATS,
  type MatchOptions,
  type MatchResult,
  type MatchSeat,
  playGame,
  playMatch,
} from './match/match';
export { createGenericMcts, type GenericMctsOptions, type GenericMctsResult } from './mcts/generic-mcts';
export {
  MAX_MCTS_SIMULATIONS,
  type MctsOpponentOptions,
  mctsOpponent,
  mctsOpponentFromId,
  parseMctsId,
} from './mcts/mcts-opponent';
export {
  createTicTacToeMcts,
  type MctsChildStats,
  type MctsSearchResult,
  type ProvenValue,
  type TicTacToeMcts,
  type TicTacToeMctsOptions,
} from './mcts/tictactoe-mcts';
export { minimaxActions, minimaxOpponent, minimaxValue } from './minimax/minimax';
export {
  POPULATION_PRESETS,
  type PopulationEnvId,
  type PopulationPresetOptions,
  populationPreset,
} from './population/presets';
export {
  createOpponent,
  kuhnOpponentRegistry,
  OPPONENT_ENV_IDS,
  type OpponentEnvId,
  type OpponentRegistry,
  opponentRegistry,
  rpsOpponentRegistry,
  ticTacToeOpponentRegistry,
} from './registry/registry';
export {
  RPS_BOTS,
  RPS_OOD_BOTS,
  RPS_TRAINING_BOTS,
  type RpsBotRule,
  rpsBotOpponent,
  rpsRandomOpponent,
  rpsRoundsOf,
} from './rps/bots';
export {
  RPS_PLAYERS,
  type RpsCeiling,
  type RpsCeilingOptions,
  type RpsLevels,
  type RpsMember,
  type RpsOpponentModel,
  RpsPlanner,
  type RpsPlayer,
  rpsCeiling,
  rpsPlayerLevels,
  ruleModel,
} from './rps/ceiling';
export {
  type PolicyOpponentOptions,
  type PolicyOpponentV1,
  policyOpponent,
} from './strategy/policy-opponent';
export {
  argmaxIndex,
  type PolicyFn,
  profileOf,
  type StrategyInput,
  type TabularStrategy,
  tableOf,
  tablePolicy,
} from './strategy/strategy';
export {
  FROZEN_PLAYERS,
  type FrozenLevels,
  type FrozenLevelsOptions,
  type FrozenPlayer,
  type FrozenPlayerCounts,
  frozenTicTacToeLevels,
} from './tictactoe/frozen-levels';
export { PATTERN_NAMES, type PatternName, patternOpponent, patternOrder } from './tictactoe/patterns';
export { randomOpponent } from './tictactoe/random';
