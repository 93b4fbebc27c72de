/**
 * What the envs the agent plays alone (Doors, Treasure, Sokoban; Rock-Paper-Scissors, whose bot throws
 * blind as part of the env) add to `TurnEpisode`: one initial state, drawn from the task when the episode
 * is made, that every attempt restarts from, and the observation made of the state's rendering, anchor
 * and info.
 */

import type { EnvObservationV1, EnvTaskV1, JsonObject } from '@mage-rl/spec';
import { TurnEpisode } from './turn-episode';

export abstract class SingleAgentEpisode<S, A, O extends { readonly maxTurns: number }> extends TurnEpisode<
  S,
  A,
  O
> {
  protected readonly initial: S;
  protected current: S;

  /** `initial`: the state every attempt starts from (drawn from the task's rng streams). */
  constructor(task: EnvTaskV1<S, A>, options: O, initial: S) {
    super(task, options);
    this.initial = initial;
    this.current = initial;
  }

  initialText(): string {
    return this.render(this.initial);
  }

  /** `state` as the agent sees it, in the task's prompt style. */
  protected abstract render(state: S): string;

  /** The anchor of `state`: the env id and a key of what the agent sees (never what is hidden from it). */
  protected abstract anchor(state: S): string;

  /** The observation's facts about `state` (what a teacher reads). */
  protected abstract info(state: S): JsonObject;

  protected observe(): EnvObservationV1 {
    const s = this.current;
    return { text: this.render(s), anchor: this.anchor(s), info: this.info(s) };
  }
}
