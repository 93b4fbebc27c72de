/**
 * What ALFWorld and WebShop share: the env object (options checked, the split's task range, a lazy server
 * connection), and an episode that
 * holds a pooled server instance per attempt, counts turns, truncates at `maxTurns` and reports the
 * outcome. A concrete env supplies the rules text, how a reset and a step read the server, how a
 * response parses, how a state renders and which outcome an ended attempt has.
 */

import {
  type AttemptOutcome,
  type EnvEpisodeV1,
  type EnvObservationV1,
  type EnvStepV1,
  type EnvTaskV1,
  type EnvV1,
  InvalidArgumentError,
  type ParsedAction,
  PROMPT_STYLES,
} from '@mage-rl/core';
import type { z } from 'zod';
import type { JsonClient } from '../http/json-client';
import { type RemoteConnectionOptions, taskIndex, validateRemoteOptions } from '../options';
import { LazyConnection, type OpenedDialect } from './connection';
import { type RemoteStateBase, remoteGameModel } from './remote-game';
import { jsonOptions, type RemoteSplit, splitRange } from './splits';

/** The options every remote env has (beyond its own). */
export interface RemoteEnvOptions extends RemoteSplit, RemoteConnectionOptions {
  readonly maxTurns: number;
}

/** What every episode of a remote env gets: the env's name, its checked options and its server connection. */
export interface RemoteEnvParts<O extends RemoteEnvOptions, D> {
  /** The env's name in messages (`ALFWorld`). */
  readonly label: string;
  readonly options: O;
  readonly connection: LazyConnection<D>;
}

/**
 * An env played on a server: `input` checked against `schema` (a `ConfigError` names the option), the
 * split's task range, one lazy connection to `the <label> server` speaking the dialect `open` builds;
 * `createEpisode` gets the task index the task's seed picks in the range.
 */
export function remoteEnv<
  S extends RemoteStateBase,
  T extends z.ZodType<RemoteEnvOptions & Record<string, unknown>>,
  D,
>(spec: {
  readonly id: string;
  readonly label: string;
  readonly schema: T;
  readonly input: unknown;
  /** Why the env has no out-of-domain tasks unless configured (said when the split asks for them). */
  readonly noOutOfDomain: string;
  readonly open: (client: JsonClient, options: z.output<T>) => OpenedDialect<D>;
  readonly createEpisode: (
    task: EnvTaskV1<S, string>,
    index: number,
    env: RemoteEnvParts<z.output<T>, D>,
  ) => EnvEpisodeV1<S, string>;
}): EnvV1<S, string> {
  const options = validateRemoteOptions(spec.id, spec.schema, spec.input);
  const range = splitRange(spec.id, options, spec.noOutOfDomain);
  const parts: RemoteEnvParts<z.output<T>, D> = {
    label: spec.label,
    options,
    connection: new LazyConnection(options, `the ${spec.label} server`, (client) =>
      spec.open(client, options),
    ),
  };
  return {
    specificationVersion: 'v1',
    id: spec.id,
    options: jsonOptions(options),
    game: remoteGameModel<S>(spec.label),
    promptStyles: PROMPT_STYLES,
    maxTurns: options.maxTurns,
    needsOpponent: false,
    createEpisode: (task) => spec.createEpisode(task, taskIndex(task.seed, range), parts),
    formatAction: (action) => `<action>${action}</action>`,
  };
}

/** What a server step produced: the next state, the event line of the turn, and its reward (default: the state's score). */
export interface RemoteStepResult<S> {
  readonly next: S;
  readonly event: string;
  readonly reward?: number;
}

/** One meta-episode on a server instance (see the module comment); `D` is the server dialect. */
export abstract class RemoteEpisode<
  S extends RemoteStateBase,
  D,
  O extends RemoteEnvOptions = RemoteEnvOptions,
> implements EnvEpisodeV1<S, string>
{
  private current: S;
  private initial = '';
  private turns = 0;
  private instance: number | undefined;
  /** Mid-attempt: the pool must not give the instance away. */
  busy = false;

  private readonly label: string;
  protected readonly options: O;
  private readonly connection: LazyConnection<D>;

  constructor(
    readonly task: EnvTaskV1<S, string>,
    env: RemoteEnvParts<O, D>,
    /** The state before the first reset (done, so `step` refuses it). */
    before: S,
  ) {
    this.label = env.label;
    this.options = env.options;
    this.connection = env.connection;
    this.current = before;
  }

  /** The rules text of the env. */
  abstract rules(): string;
  /** The action of a response, checked against `state`. */
  abstract parse(response: string): ParsedAction<string>;
  /**
   * Resets server instance `instance` to this episode's task for attempt `attempt`; the fresh state. A
   * dialect with no field for the attempt ignores it (every attempt resets the same task).
   */
  protected abstract resetOn(dialect: D, instance: number, attempt: number): S;
  /** Plays `action` on server instance `instance` from `state`. */
  protected abstract stepOn(dialect: D, instance: number, action: string, state: S): RemoteStepResult<S>;
  /** The text the agent reads for `state`. */
  protected abstract render(state: S): string;
  /** The observation of `state` (text, anchor, info). */
  protected abstract observation(state: S): EnvObservationV1;
  /** The outcome of the ended attempt in `state`; `truncated` when the turn limit ended it. */
  protected abstract outcome(state: S, truncated: boolean): AttemptOutcome;

  get state(): S {
    return this.current;
  }
  get turn(): number {
    return this.turns;
  }
  get done(): boolean {
    return this.current.done;
  }
  initialText(): string {
    return this.initial;
  }
  reveal(): undefined {
    return undefined;
  }

  reset(attempt: number): EnvObservationV1 {
    const { dialect, pool } = this.connection.get();
    this.busy = false;
    this.instance = pool.acquire(this, this.instance);
    const fresh = this.resetOn(dialect, this.instance, attempt);
    this.turns = 0;
    this.current = fresh;
    this.initial = this.render(this.current);
    this.busy = true;
    return this.observation(this.current);
  }

  step(action: ParsedAction<string>): EnvStepV1 {
    if (this.current.done) {
      throw new InvalidArgumentError(`${this.label}: step() after the attempt ended; call reset() first.`);
    }
    this.turns++;
    if (!action.valid) return this.finish(0, false, `invalid: ${action.reason}`, this.current);
    const { dialect, pool } = this.connection.get();
    if (this.instance === undefined || !pool.holds(this, this.instance)) {
      throw new InvalidArgumentError(`${this.label}: step() before reset().`);
    }
    const { next, event, reward } = this.stepOn(dialect, this.instance, action.action, this.current);
    return this.finish(reward ?? next.score, true, event, next);
  }

  private finish(reward: number, valid: boolean, event: string, next: S): EnvStepV1 {
    const truncated = !next.done && this.turns >= this.options.maxTurns;
    this.current = truncated ? { ...next, done: true } : next;
    const observation = this.observation(this.current);
    if (!this.current.done) return { observation, reward, valid, event, done: false };
    this.busy = false;
    return { observation, reward, valid, event, done: true, outcome: this.outcome(this.current, truncated) };
  }
}
