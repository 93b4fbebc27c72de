/**
 * The OpenEnv dialect (meta-pytorch/OpenEnv): `GET /schema` once, then one WebSocket session on `/ws` per
 * pool instance, with the typed messages `reset {seed, attempt}`, `step {<action field>: text}`, `state`
 * and `close`. The session of an instance is reopened when the server dropped it (an idle limit, a restart)
 * before a reset; a session lost mid-attempt fails the step, since the server's episode is gone with it.
 * Protocol details: architecture/env-remote.md.
 */

import { firstIssue } from '@mage-rl/core';
import { RemoteEnvError } from '../errors';
import { excerpt, type JsonClient, type TransportError, unanswered, withRetries } from '../http/json-client';
import { SyncWebSocket } from '../http/sync-websocket';
import {
  type OpenEnvResult,
  openEnvSchemaAnswer,
  openEnvServerMessage,
  openEnvSocketUrl,
} from '../openenv/protocol';
import type { InstanceBackend } from '../pool';

/** Which fields of the server's action and observation carry the text (`textarena_env`'s by default). */
export interface OpenEnvFields {
  /** The action field that takes the agent's text (`message`). */
  readonly actionField: string;
  /** The observation field with the text the agent reads (`prompt`). */
  readonly promptField: string;
  /** An observation field with a list of messages appended to the text (`messages`), or none. */
  readonly messagesField: string | null;
  /** An observation field with an object of facts kept in the observation's info (`info`), or none. */
  readonly infoField: string | null;
}

/** What a reset or a step shows the agent. */
export interface OpenEnvView {
  readonly text: string;
  /** The last message, else the prompt: what changed, for the turn's event line. */
  readonly latest: string;
  readonly info: Record<string, unknown>;
  /** The server's reward (`null` and absent as 0, booleans as 0 / 1). */
  readonly reward: number;
  readonly done: boolean;
}

/** Longest WebSocket message accepted from a server. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Transport errors after which a reset reopens the session and tries again. */
const SESSION_LOST = new Set(['ECLOSED', 'ECONNRESET', 'EPIPE', 'ENOSESSION']);

export class OpenEnvDialect {
  private readonly sockets = new SyncWebSocket(MAX_MESSAGE_BYTES);
  /** Pool instance → its WebSocket session (absent while it has none). */
  private readonly sessions = new Map<number, number>();
  private nextInstance = 0;
  private readonly wsUrl: string;

  constructor(
    readonly client: JsonClient,
    private readonly fields: OpenEnvFields,
  ) {
    this.wsUrl = openEnvSocketUrl(client.base);
  }

  /** Reads `GET /schema` and checks that the server's action and observation have the fields used. */
  checkSchema(): void {
    const schema = this.client.get('/schema', {}, openEnvSchemaAnswer);
    const action = propertiesOf(schema.action);
    const field = this.fields.actionField;
    const fix = (option: string) =>
      `set the env option ${option} to the field that does (--set env.options.${option}=<field>)`;
    if (action !== undefined && !(field in action.properties)) {
      throw this.misfit(
        `takes actions with the fields ${list(Object.keys(action.properties))}, none of them '${field}', which this client puts the agent's text in; ${fix('actionField')}`,
        'actionField',
      );
    }
    if (action !== undefined) {
      const type = (action.properties[field] as { type?: unknown } | undefined)?.type;
      if (type !== undefined && type !== 'string') {
        throw this.misfit(
          `declares its action field '${field}' as ${JSON.stringify(type)}, not a string: it does not take text there; ${fix('actionField')}`,
          'actionField',
        );
      }
      const others = action.required.filter((r) => r !== field);
      if (others.length > 0) {
        throw this.misfit(
          `requires the action fields ${list(others)} besides '${field}', which a text agent cannot fill: this client plays text environments (one text field per action)`,
          'actionField',
        );
      }
    }
    const observation = propertiesOf(schema.observation);
    if (observation !== undefined && !(this.fields.promptField in observation.properties)) {
      throw this.misfit(
        `has observations with the fields ${list(Object.keys(observation.properties))}, none of them '${this.fields.promptField}', the text this client shows the agent; ${fix('promptField')}`,
        'promptField',
      );
    }
  }

  /** A new pool instance with a session of its own. */
  create(): number {
    const instance = this.nextInstance++;
    this.sessions.set(instance, this.connect());
    return instance;
  }

  /** Ends the instance's session (a `close` message, then the socket). */
  close(instance: number): void {
    const session = this.sessions.get(instance);
    this.sessions.delete(instance);
    if (session !== undefined) this.sockets.close(session, JSON.stringify({ type: 'close' }));
  }

  /** Stops the sessions' worker thread. */
  dispose(): void {
    this.sockets.stop();
  }

  /**
   * Resets the instance's episode to `seed` for attempt `attempt` of the meta-episode; reopens its session
   * when the server had dropped it. The attempt travels as an extra reset field: an OpenEnv server passes
   * its env's `reset` only the keyword arguments it takes, and `mage env-serve` reads it (a per-attempt
   * deal, the attempt's opponent stream).
   */
  reset(instance: number, seed: number, attempt: number): OpenEnvView {
    const message = JSON.stringify({ type: 'reset', data: { seed, attempt } });
    let reply = this.exchange(instance, 'reset', message);
    if ('lost' in reply) {
      this.sessions.set(instance, this.connect());
      reply = this.exchange(instance, 'reset', message);
    }
    if ('lost' in reply) throw this.unanswered('reset', reply.lost);
    return this.view('reset', this.result('reset', reply.text));
  }

  /** Plays `text` in the instance's episode. */
  step(instance: number, text: string): OpenEnvView {
    const reply = this.exchange(
      instance,
      'step',
      JSON.stringify({ type: 'step', data: { [this.fields.actionField]: text } }),
    );
    if ('lost' in reply) {
      throw new RemoteEnvError(
        `${this.where()} lost the session mid-attempt (${reply.lost.message} [${reply.lost.code}]): the episode on the server is gone. Check the server's log (its idle limit, its capacity, a restart); the next reset opens a new session.`,
        {
          context: {
            url: this.client.base,
            endpoint: '/ws step',
            reason: 'unreachable',
            code: reply.lost.code,
          },
        },
      );
    }
    return this.view('step', this.result('step', reply.text));
  }

  /** The server's state of the instance's episode (`episode_id`, `step_count`, …). */
  state(instance: number): Record<string, unknown> {
    const reply = this.exchange(instance, 'state', JSON.stringify({ type: 'state' }));
    if ('lost' in reply) throw this.unanswered('state', reply.lost);
    const message = this.parse('state', reply.text);
    if (message.type !== 'state') throw this.unexpected('state', `a '${message.type}' message`, reply.text);
    return message.data;
  }

  /** Opens a session, retrying while the server cannot be reached. */
  private connect(): number {
    const { policy } = this.client;
    const r = withRetries(policy, true, () => {
      const reply = this.sockets.open(this.wsUrl, policy.timeoutMs);
      if (reply.kind === 'open') return { ok: reply.id };
      const error: TransportError = reply.kind === 'error' ? reply : { code: 'EWS', message: 'no session' };
      return { error };
    });
    if ('ok' in r) return r.ok;
    if (r.error.code === 'EHTTP') {
      throw new RemoteEnvError(
        `${this.where()} refused a WebSocket session on ${this.wsUrl}: ${r.error.message}. Is it an OpenEnv server (its /ws endpoint)? Check --env-url.`,
        { context: { url: this.client.base, endpoint: '/ws', reason: 'http-status' } },
      );
    }
    throw unanswered(
      this.client.label,
      this.client.base,
      `a WebSocket session on /ws`,
      '/ws',
      r.error,
      r.waited,
      policy,
    );
  }

  /** One message and its answer; `lost` when the session is gone (closed, reset, never opened). */
  private exchange(
    instance: number,
    what: string,
    text: string,
  ): { readonly text: string } | { readonly lost: TransportError } {
    const session = this.sessions.get(instance);
    if (session === undefined) return { lost: { code: 'ENOSESSION', message: 'no open session' } };
    const reply = this.sockets.exchange(session, text, this.client.policy.timeoutMs);
    if (reply.kind === 'message') return { text: reply.text };
    // Whatever failed, the session cannot be trusted any more (a late answer would answer the next message).
    this.sockets.close(session);
    this.sessions.delete(instance);
    const error: TransportError = reply.kind === 'error' ? reply : { code: 'ECLOSED', message: 'closed' };
    if (SESSION_LOST.has(error.code)) return { lost: error };
    throw this.unanswered(what, error);
  }

  private result(what: string, text: string): OpenEnvResult {
    const message = this.parse(what, text);
    if (message.type !== 'observation') throw this.unexpected(what, `a '${message.type}' message`, text);
    return message.data;
  }

  private parse(what: string, text: string) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw this.unexpected(what, 'text that is not JSON', text);
    }
    const parsed = openEnvServerMessage.safeParse(json);
    if (!parsed.success) {
      const { path, message } = firstIssue(parsed.error);
      throw this.unexpected(
        what,
        `a message of another shape${path === '' ? '' : ` at '${path}'`} (${message})`,
        text,
      );
    }
    const message = parsed.data;
    if (message.type === 'error') {
      const code = message.data.code ?? 'UNKNOWN';
      const hint =
        code === 'CAPACITY_REACHED'
          ? ' Every session the server allows is in use: start it with more sessions (OpenEnv: max_concurrent_envs; mage env-serve: --max-instances) or run fewer rollout slots at once.'
          : code === 'VALIDATION_ERROR'
            ? ` Its action or reset fields differ from what this client sends; check the env options actionField (now '${this.fields.actionField}').`
            : '';
      throw new RemoteEnvError(
        `${this.where()} answered the ${what} message with error ${code}: ${message.data.message ?? excerpt(text)}.${hint}`,
        { context: { url: this.client.base, endpoint: `/ws ${what}`, reason: 'server-error', code } },
      );
    }
    return message;
  }

  /** The agent's view of a result: the text fields read, the info kept, the reward as a number. */
  private view(what: string, result: OpenEnvResult): OpenEnvView {
    const o = result.observation;
    const prompt = o[this.fields.promptField];
    if (typeof prompt !== 'string') {
      throw this.misfit(
        `sent a ${what} observation whose field '${this.fields.promptField}' is ${prompt === undefined ? 'missing' : `not text (${typeof prompt})`}; its fields: ${list(Object.keys(o))}. Set the env option promptField to the one with the text (--set env.options.promptField=<field>)`,
        'promptField',
      );
    }
    const messages = this.messages(what, o);
    const lines = [prompt, ...messages].filter((l) => l.trim() !== '');
    const info = this.fields.infoField === null ? undefined : o[this.fields.infoField];
    const reward = typeof result.reward === 'boolean' ? Number(result.reward) : (result.reward ?? 0);
    return {
      text: lines.join('\n'),
      latest: messages.at(-1) ?? prompt,
      info:
        typeof info === 'object' && info !== null && !Array.isArray(info)
          ? (info as Record<string, unknown>)
          : {},
      reward,
      done: result.done ?? false,
    };
  }

  /**
   * The contents of the messages field, strings or `{content}` objects; messages of category `PROMPT`
   * are skipped, since `textarena_env` builds the prompt from them.
   */
  private messages(what: string, o: Record<string, unknown>): string[] {
    const field = this.fields.messagesField;
    if (field === null || o[field] === undefined || o[field] === null) return [];
    const value = o[field];
    const bad = () =>
      this.misfit(
        `sent a ${what} observation whose field '${field}' is not a list of messages (strings or objects with a 'content' text): ${excerpt(JSON.stringify(value))}. Set the env option messagesField to null (--set env.options.messagesField=null) or to the right field`,
        'messagesField',
      );
    if (!Array.isArray(value)) throw bad();
    return value.flatMap((m: unknown) => {
      if (typeof m === 'string') return [m];
      if (typeof m !== 'object' || m === null) throw bad();
      const { content, category } = m as { content?: unknown; category?: unknown };
      if (typeof content !== 'string') throw bad();
      return category === 'PROMPT' ? [] : [content];
    });
  }

  private where(): string {
    return `${this.client.label} at ${this.client.base}`;
  }

  private misfit(problem: string, option: string): RemoteEnvError {
    return new RemoteEnvError(`${this.where()} ${problem}.`, {
      context: { url: this.client.base, endpoint: '/ws', reason: 'bad-response', option },
    });
  }

  private unexpected(what: string, got: string, text: string): RemoteEnvError {
    return new RemoteEnvError(
      `${this.where()} answered the ${what} message with ${got}: ${excerpt(text)}. This client speaks OpenEnv's WebSocket protocol (see the env-remote README).`,
      { context: { url: this.client.base, endpoint: `/ws ${what}`, reason: 'bad-response' } },
    );
  }

  private unanswered(what: string, error: TransportError): RemoteEnvError {
    return unanswered(
      this.client.label,
      this.client.base,
      `the ${what} message on /ws`,
      `/ws ${what}`,
      error,
      0,
      this.client.policy,
    );
  }
}

/** The `properties` and `required` of a JSON schema of an object; `undefined` when it lists none. */
function propertiesOf(
  schema: Record<string, unknown>,
): { properties: Record<string, unknown>; required: string[] } | undefined {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return undefined;
  const required = Array.isArray(schema.required)
    ? schema.required.filter((r): r is string => typeof r === 'string')
    : [];
  return { properties: properties as Record<string, unknown>, required };
}

function list(names: readonly string[]): string {
  return names.length === 0 ? '(none)' : names.map((n) => `'${n}'`).join(', ');
}

/**
 * An OpenEnv connection as the instance pool uses it: the schema checked, the dialect over `client`, and
 * the backend whose instances are WebSocket sessions.
 */
export function openOpenEnv(
  client: JsonClient,
  fields: OpenEnvFields,
): { dialect: OpenEnvDialect; backend: Omit<InstanceBackend, 'label'>; dispose: () => void } {
  const dialect = new OpenEnvDialect(client, fields);
  try {
    dialect.checkSchema();
  } catch (error) {
    dialect.dispose();
    throw error;
  }
  return {
    dialect,
    backend: { create: () => dialect.create(), close: (id) => dialect.close(id) },
    dispose: () => dialect.dispose(),
  };
}
