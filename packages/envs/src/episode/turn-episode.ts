/**
 * What the episodes of the text envs share: the task, the resolved options, the state and the turn count
 * of the current attempt, and the turn protocol — a turn after the attempt ended is an error, an
 * unparsable or illegal turn changes nothing, and every step record carries the outcome once the attempt
 * is over.
 */

import {
  type AttemptOutcome,
  type EnvEpisodeV1,
  type EnvObservationV1,
  type EnvStepV1,
  type EnvTaskV1,
  InvalidArgumentError,
  type ParsedAction,
} from '@mage-rl/spec';
import { stepResult } from './outcomes';
import { invalidEvent } from './text-env';

export abstract class TurnEpisode<S, A, O extends { readonly maxTurns: number }>
  implements EnvEpisodeV1<S, A>
{
  readonly task: EnvTaskV1<S, A>;
  protected readonly options: O;
  /** The env's name in error messages (`Kuhn Poker`). */
  protected abstract readonly label: string;
  protected abstract current: S;
  /** Agent turns played in this attempt (invalid ones count). */
  protected turns = 0;

  constructor(task: EnvTaskV1<S, A>, options: O) {
    this.task = task;
    this.options = options;
  }

  get state(): S {
    return this.current;
  }
  get turn(): number {
    return this.turns;
  }
  abstract get done(): boolean;
  abstract rules(): string;
  abstract initialText(): string;
  abstract reset(attempt: number): EnvObservationV1;
  abstract parse(response: string): ParsedAction<A>;
  abstract reveal(): string | undefined;

  step(action: ParsedAction<A>): EnvStepV1 {
    if (this.done) {
      throw new InvalidArgumentError(`${this.label}: step() after the attempt ended; call reset() first.`);
    }
    this.turns++;
    return action.valid ? this.play(action.action) : this.invalid(action.reason);
  }

  /** A parsed turn of the agent (the turn is already counted). */
  protected abstract play(action: A): EnvStepV1;

  protected abstract observe(): EnvObservationV1;

  /** How the finished attempt ended. */
  protected abstract outcome(): AttemptOutcome;

  /** The reward of a turn that ends the attempt by the turn limit: the turn's own, unless an env says otherwise. */
  protected truncatedReward(reward: number): number {
    return reward;
  }

  /** An invalid turn: nothing changes. */
  protected invalid(reason: string): EnvStepV1 {
    return this.result(0, false, invalidEvent(this.task.style, reason));
  }

  /** The step record of a turn, with the outcome when the attempt is over. */
  protected result(reward: number, valid: boolean, event: string): EnvStepV1 {
    const outcome = this.done ? this.outcome() : undefined;
    const scored = outcome?.truncated ? this.truncatedReward(reward) : reward;
    return stepResult(this.observe(), scored, valid, event, outcome);
  }
}
