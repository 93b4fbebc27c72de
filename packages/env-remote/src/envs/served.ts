/**
 * One of mage-rl's own envs played on a `mage env-serve` server: rules, observations, anchors, events
 * and outcomes come from the server's copy of the env, parsing too, so an episode is the same as the
 * in-process one for the same task. The local env supplies what needs no state: the game model, the
 * turn limit and `formatAction`.
 */

import {
  type EnvEpisodeV1,
  type EnvObservationV1,
  type EnvStepV1,
  type EnvTaskV1,
  type EnvV1,
  InvalidArgumentError,
  type JsonObject,
  type ParsedAction,
} from '@mage-rl/core';
import type { z } from 'zod';
import { openWebShop, type WebShopDialect } from '../dialects/webshop';
import { RemoteEnvError } from '../errors';
import type { RemoteConnectionOptions } from '../options';
import {
  type ServedResetExtra,
  type servedObservation,
  servedParseAnswer,
  servedResetFacts,
  servedStepInfo,
} from '../served-protocol';
import { LazyConnection } from './connection';

/** `local`, played on the server at `connection.url`; `options` are the env options sent with each reset. */
export function createServedEnv<S, A>(local: EnvV1<S, A>, connection: RemoteConnectionOptions): EnvV1<S, A> {
  const link = new LazyConnection(connection, `the mage env server`, openWebShop);
  return {
    ...local,
    options: { ...local.options, url: connection.url },
    createEpisode: (task) => new ServedEpisode(local, task, link),
  };
}

const observationOf = (o: z.infer<typeof servedObservation>): EnvObservationV1 => ({
  text: o.text,
  anchor: o.anchor,
  info: o.info as JsonObject,
});

class ServedEpisode<S, A> implements EnvEpisodeV1<S, A> {
  private instance: number | undefined;
  private turns = 0;
  private ended = true;
  private facts: { rules: string; initialText: string } | undefined;
  private revealed: string | undefined;
  busy = false;

  constructor(
    private readonly local: EnvV1<S, A>,
    readonly task: EnvTaskV1<S, A>,
    private readonly link: LazyConnection<WebShopDialect>,
  ) {}

  get state(): S {
    throw new InvalidArgumentError(`The state of served env '${this.local.id}' lives on its server.`);
  }
  get turn(): number {
    return this.turns;
  }
  get done(): boolean {
    return this.ended;
  }
  rules(): string {
    return this.known().rules;
  }
  initialText(): string {
    return this.known().initialText;
  }
  reveal(): string | undefined {
    return this.revealed;
  }

  reset(attempt: number): EnvObservationV1 {
    const { dialect, pool } = this.link.get();
    this.busy = false;
    this.instance = pool.acquire(this, this.instance);
    const extra: ServedResetExtra = {
      env: this.local.id,
      attempt,
      style: this.task.style,
      seat: this.task.seat,
      opponent: this.task.opponent?.id ?? null,
      options: this.local.options as Record<string, unknown>,
    };
    const r = dialect.reset(this.instance, this.task.seed, extra);
    const facts = servedResetFacts.safeParse(r.extra);
    if (!facts.success) {
      throw new RemoteEnvError(
        `The server at ${dialect.client.base} answered /reset without mage's episode facts: it is not a 'mage env-serve' server. Play AgentGym servers with --env alfworld or --env webshop.`,
        { context: { url: dialect.client.base, endpoint: '/reset', reason: 'bad-response' } },
      );
    }
    if (facts.data.env !== this.local.id) {
      throw new RemoteEnvError(
        `The server at ${dialect.client.base} serves env '${facts.data.env}', but this run plays '${this.local.id}'. Start 'mage env-serve ${this.local.id}' or change --env.`,
        { context: { url: dialect.client.base, endpoint: '/reset', reason: 'bad-response' } },
      );
    }
    this.facts = { rules: facts.data.rules, initialText: facts.data.initialText };
    this.turns = 0;
    this.ended = false;
    this.revealed = undefined;
    this.busy = true;
    return observationOf(facts.data.observation);
  }

  parse(response: string): ParsedAction<A> {
    const { dialect } = this.link.get();
    const body = { env_idx: this.held(), text: response };
    const r = dialect.client.post('/parse', body, servedParseAnswer, { idempotent: true });
    // The action is the server's JSON of the env's own action type.
    return r.valid
      ? { valid: true, action: r.action as A, text: r.text }
      : { valid: false, reason: r.reason };
  }

  step(action: ParsedAction<A>): EnvStepV1 {
    if (this.ended) {
      throw new InvalidArgumentError(`${this.local.id}: step() after the attempt ended; call reset() first.`);
    }
    const { dialect } = this.link.get();
    const r = action.valid
      ? dialect.step(this.held(), this.local.formatAction(action.action, this.task.style))
      : dialect.step(this.held(), '', { invalid_reason: action.reason });
    const info = servedStepInfo.safeParse(r.info);
    if (!info.success) {
      throw new RemoteEnvError(
        `The server at ${dialect.client.base} answered /step without mage's step facts: it is not a 'mage env-serve' server.`,
        { context: { url: dialect.client.base, endpoint: '/step', reason: 'bad-response' } },
      );
    }
    this.turns++;
    const i = info.data;
    const observation = observationOf(i.observation);
    if (!r.done) return { observation, reward: r.reward, valid: i.valid, event: i.event, done: false };
    if (!i.outcome) {
      throw new RemoteEnvError(`The server at ${dialect.client.base} ended an attempt without an outcome.`, {
        context: { url: dialect.client.base, endpoint: '/step', reason: 'bad-response' },
      });
    }
    this.ended = true;
    this.busy = false;
    this.revealed = i.reveal;
    return { observation, reward: r.reward, valid: i.valid, event: i.event, done: true, outcome: i.outcome };
  }

  private held(): number {
    const { pool } = this.link.get();
    if (this.instance === undefined || !pool.holds(this, this.instance)) {
      throw new InvalidArgumentError(
        `${this.local.id}: the episode has no server instance; call reset() first.`,
      );
    }
    return this.instance;
  }

  private known(): { rules: string; initialText: string } {
    if (!this.facts)
      throw new InvalidArgumentError(`${this.local.id}: rules are known after the first reset().`);
    return this.facts;
  }
}
