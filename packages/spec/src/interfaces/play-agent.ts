import type { MetaEpisodeBatchRecord } from '../records/records';
import type { GameModelV1 } from './game-model';
import type { OpponentV1 } from './opponent';

/**
 * A trained policy that a person can play against: it plays a meta-episode (its attempts and the
 * reflections between them) with the person's moves as its opponent. The trainer builds one from a run
 * directory; the dashboard's play page offers it.
 */
export interface PlayAgentV1 {
  readonly id: string;
  readonly name: string;
  /** The env id of the game it plays (a key of the play page's games). */
  readonly game: string;
  readonly model: GameModelV1<unknown, unknown>;
  /** Plays one meta-episode against `opponent` with task seed `seed`; rejects with what the opponent threw. */
  play(
    opponent: OpponentV1<unknown, unknown>,
    seed: number,
    attempts: number,
  ): Promise<MetaEpisodeBatchRecord>;
}
