import type { Rng } from '../rng/rng';

/**
 * An opponent: a scripted or search-based player. All randomness comes from the injected `rng`, so an
 * env that derives that stream from the task seed is deterministic. Opponents see the state through
 * `GameModelV1.observe` where the game has hidden information.
 */
export interface OpponentV1<S = unknown, A = unknown> {
  readonly specificationVersion: 'v1';
  /** Stable id, for example `mcts-100`, `pattern-centre-first`, `aggressive`. Part of every anchor. */
  readonly id: string;
  /** Choose an action for the player to move in `state`. */
  act(state: S, context: OpponentContext): A;
}

export interface OpponentContext {
  readonly rng: Rng;
  /** The seat index of the opponent in the game model (0 or 1). */
  readonly player: number;
}

/** Creates a fresh opponent instance (opponents may keep per-game caches). */
export type OpponentFactory<S = unknown, A = unknown> = () => OpponentV1<S, A>;
