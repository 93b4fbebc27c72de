/**
 * The game-model face of an environment: the rules as a search- and solver-friendly structure.
 * MCTS, minimax, CFR and best response work on this interface only.
 */

/** `currentPlayer` value at chance nodes (for example the deal in Kuhn Poker). */
export const CHANCE_PLAYER = -1;
/** `currentPlayer` value at terminal states. */
export const TERMINAL_PLAYER = -2;

export interface ChanceOutcome<A> {
  readonly action: A;
  readonly probability: number;
}

export interface GameModelV1<S, A> {
  readonly specificationVersion: 'v1';
  /** 1 for single-agent puzzles (Sokoban), 2 for two-player games. */
  readonly numPlayers: number;
  /** 0..numPlayers-1, `CHANCE_PLAYER` at chance nodes, `TERMINAL_PLAYER` at terminal states. */
  currentPlayer(state: S): number;
  /** Legal actions of the player to move (chance outcomes at chance nodes). Empty at terminal states. */
  legalActions(state: S): readonly A[];
  /** Outcome distribution at chance nodes; required when the game has chance nodes. */
  chanceOutcomes?(state: S): readonly ChanceOutcome<A>[];
  /** The state after `action`. Pure: never mutates `state`. */
  apply(state: S, action: A): S;
  isTerminal(state: S): boolean;
  /** Per-player returns at a terminal state, in game units (chips, +1/0/-1 for a board game …). */
  returns(state: S): readonly number[];
  /** Key of what `player` knows (hidden-information games). Equal keys must have equal legal actions. */
  informationStateKey?(state: S, player: number): string;
  /**
   * The state as `player` may see it: private information of other players removed. Opponents are only
   * ever handed `observe(state, player)` when this is defined.
   */
  observe?(state: S, player: number): S;
  /** Stable text key of an action (`"2,3"`, `"BET"`, `"up"`). */
  actionKey(action: A): string;
  /** Stable text key of a full state (tests, transposition tables). */
  stateKey(state: S): string;
}
