/**
 * `mage env-serve --protocol openenv`: one of mage-rl's envs served with OpenEnv's routes and messages in
 * the `textarena_env` convention. Episodes are played over `/ws`, one env instance per WebSocket
 * connection (typed messages `reset`, `step`, `state`, `close`; answers `observation`, `state`, `error`
 * with OpenEnv's error codes). `GET /health`, `/metadata`, `/schema`, `/state` and the stateless
 * `POST /reset` and `/step` answer as an OpenEnv server does. Limits as in the WebShop dialect: sessions
 * (`maxInstances`), an idle limit (`instanceTtlMs`), body and message sizes, requests at once, Host / Origin
 * checks on requests and upgrades. Design: architecture/env-remote.md.
 */

import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpError } from '@mage-rl/core/http';
import { type WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import {
  OPENENV_MESSAGE_TYPES,
  type OpenEnvErrorCode,
  openEnvClientMessage,
  openEnvResetData,
  textArenaAction,
  textArenaObservation,
  textArenaState,
} from '../openenv/protocol';
import type { EnvServerOptions } from './env-server';
import { EnvService, type ResetChoice } from './env-service';
import { createJsonServer, noRoute, parsedBody, refuseUpgrade } from './json-server';

/** Sessions at once unless `maxInstances` says otherwise. */
const DEFAULT_SESSIONS = 64;
const DEFAULT_IDLE_MS = 30 * 60_000;

const ROUTES = [
  'GET /health',
  'GET /metadata',
  'GET /schema',
  'GET /state',
  'POST /reset',
  'POST /step',
  'GET /ws',
];

/** `POST /step`: the action, and OpenEnv's optional fields (accepted, not used). */
const httpStepBody = z.looseObject({
  action: z.record(z.string(), z.unknown()),
  timeout_s: z.number().positive().nullable().optional(),
  request_id: z.string().max(255).nullable().optional(),
});

/** A WebSocket session: its env instance and what OpenEnv's state reports. */
interface Session {
  readonly instance: number;
  episodeId: string | null;
  stepCount: number;
  lastReward: number;
  lastInfo: Record<string, unknown>;
  rules: string;
  /** What the last reset played (seed, attempt, opponent), sent as each result's `metadata`. */
  metadata: Record<string, unknown>;
  idle?: NodeJS.Timeout;
}

/** A failure answered with an OpenEnv `error` message. */
class WsError extends Error {
  constructor(
    readonly code: OpenEnvErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function createOpenEnvServer(options: EnvServerOptions, host: string): Server {
  const sessions = new OpenEnvSessions(options);
  const server = createJsonServer({
    hardening: { ...options.http, host },
    maxConcurrent: options.maxConcurrent ?? 64,
    maxBodyBytes: sessions.maxBodyBytes,
    log: options.log,
    errorBody: (message) => ({ detail: message }),
    handle: (req, url, body) => sessions.http(req, url, body),
    upgrade: (req, socket, head) => sessions.upgrade(req, socket, head),
  });
  server.on('close', () => sessions.closeAll());
  return server;
}

/** The sessions of one server over its `EnvService`, and its HTTP routes. */
class OpenEnvSessions {
  readonly maxBodyBytes: number;
  private readonly maxSessions: number;
  private readonly idleMs: number;
  private readonly service: EnvService;
  private readonly sessions = new Set<Session>();
  private readonly wss: WebSocketServer;
  private episodes = 0;
  private readonly schemas = {
    action: z.toJSONSchema(textArenaAction),
    observation: z.toJSONSchema(textArenaObservation),
    state: z.toJSONSchema(textArenaState),
  };

  constructor(private readonly options: EnvServerOptions) {
    this.maxSessions = options.maxInstances ?? DEFAULT_SESSIONS;
    this.idleMs = options.instanceTtlMs ?? DEFAULT_IDLE_MS;
    this.maxBodyBytes = options.maxBodyBytes ?? 65_536;
    // One instance more than the sessions, for the stateless HTTP reset and step (each frees its own at
    // once); sessions end by their idle timer, not by the service's expiry.
    this.service = new EnvService({
      ...options,
      maxInstances: this.maxSessions + 1,
      instanceTtlMs: Number.POSITIVE_INFINITY,
    });
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: this.maxBodyBytes,
      perMessageDeflate: false,
    });
  }

  /** Takes an upgrade request on `/ws` (its Host and Origin already checked). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/ws') {
      refuseUpgrade(socket, 404, { detail: `no WebSocket endpoint ${path}; sessions are on /ws` });
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.start(ws));
  }

  closeAll(): void {
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }

  /** A new connection: a session of its own, or `CAPACITY_REACHED` and the socket closed. */
  private start(ws: WebSocket): void {
    ws.on('error', () => ws.terminate());
    if (this.sessions.size >= this.maxSessions) {
      const extra = { active_sessions: this.sessions.size, max_sessions: this.maxSessions };
      const message = `all ${this.maxSessions} sessions of this server are in use; retry later`;
      sendError(ws, new WsError('CAPACITY_REACHED', message, extra));
      ws.close(1013, 'capacity reached');
      return;
    }
    const session: Session = {
      instance: this.service.create(),
      episodeId: null,
      stepCount: 0,
      lastReward: 0,
      lastInfo: {},
      rules: '',
      metadata: {},
    };
    this.sessions.add(session);
    const touch = () => {
      clearTimeout(session.idle);
      session.idle = setTimeout(() => ws.close(1000, 'idle too long'), this.idleMs);
      session.idle.unref();
    };
    touch();
    ws.on('message', (data, isBinary) => {
      touch();
      const text = isBinary ? '' : Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
      try {
        const reply = this.onMessage(session, text);
        if (reply === 'close') ws.close(1000);
        else ws.send(JSON.stringify(reply));
      } catch (error) {
        const wsError = asWsError(error);
        if (wsError.code === 'EXECUTION_ERROR' && !(error instanceof WsError)) {
          this.options.log?.(`/ws: ${wsError.message}`);
        }
        sendError(ws, wsError);
      }
    });
    ws.on('close', () => {
      clearTimeout(session.idle);
      this.sessions.delete(session);
      try {
        this.service.close(session.instance);
      } catch {
        // Already gone.
      }
    });
  }

  /** The answer to one message of a session ('close': close the socket without one). */
  private onMessage(s: Session, text: string): unknown {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new WsError(
        'INVALID_JSON',
        `Invalid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const type = typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined;
    if (!OPENENV_MESSAGE_TYPES.includes(type as never)) {
      const shown = typeof type === 'string' ? type : JSON.stringify(type ?? '');
      throw new WsError('UNKNOWN_TYPE', `Unknown message type: ${shown}`);
    }
    const message = validated(openEnvClientMessage, json);
    switch (message.type) {
      case 'reset': {
        const data = validated(openEnvResetData, message.data);
        const { observation, rules, metadata } = this.reset(s.instance, data.seed ?? null, data);
        this.episodes++;
        s.episodeId = data.episode_id ?? `${this.options.envId}-${metadata.seed}-${this.episodes}`;
        s.stepCount = 0;
        s.lastReward = 0;
        s.lastInfo = {};
        s.rules = rules;
        s.metadata = metadata;
        return { type: 'observation', data: { ...observation, metadata } };
      }
      case 'step': {
        const action = validated(textArenaAction, message.data);
        const result = this.step(s.instance, s.rules, action.message);
        s.stepCount++;
        s.lastReward = result.reward;
        s.lastInfo = result.observation.info;
        return { type: 'observation', data: { ...result, metadata: s.metadata } };
      }
      case 'state':
        return { type: 'state', data: this.stateOf(s) };
      case 'close':
        return 'close';
    }
  }

  /**
   * Resets `instance` to task `seed` (null: the session's next seedless seed) with the mage fields of
   * `data`: the result, the rules, and what was played (OpenEnv's `metadata`: seed, attempt, opponent).
   */
  private reset(instance: number, seed: number | null, data: Record<string, unknown>) {
    const [text, facts] = this.service.reset({ env_idx: instance, session_id: seed, ...withoutNulls(data) });
    const rules = typeof facts.rules === 'string' ? facts.rules : '';
    const info = facts.observation as { info?: unknown; anchor?: unknown } | undefined;
    const extra = { observation: info?.info ?? {}, anchor: info?.anchor ?? '' };
    const metadata = { env: this.options.envId, ...(facts.played as ResetChoice) };
    return {
      rules,
      metadata,
      observation: { observation: textArena(rules, text, [], extra), reward: 0, done: false },
    };
  }

  /** Plays `message` on `instance`: the result in OpenEnv's shape. */
  private step(instance: number, rules: string, message: string) {
    const r = this.service.step({ env_idx: instance, action: message });
    const info = r.info as { observation: { info: unknown; anchor: string }; event: string } & Record<
      string,
      unknown
    >;
    const { observation, ...rest } = info;
    const facts = { ...rest, observation: observation.info, anchor: observation.anchor };
    return {
      observation: textArena(rules, String(r.state), [info.event], facts),
      reward: Number(r.reward),
      done: Boolean(r.done),
    };
  }

  /** `textarena_env`'s state of session `s` (of a fresh env without one). */
  private stateOf(s: Session | null) {
    const facts = s ? this.service.facts(s.instance) : null;
    return {
      episode_id: s?.episodeId ?? null,
      step_count: s?.stepCount ?? 0,
      env_id: this.options.envId,
      num_players: facts?.numPlayers ?? 1,
      max_turns: facts?.maxTurns ?? null,
      turn: facts?.turn ?? 0,
      last_reward: s?.lastReward ?? 0,
      last_info: s?.lastInfo ?? {},
    };
  }

  /** Runs `use` on an instance of its own, freed afterwards (the stateless HTTP reset and step). */
  private withInstance<T>(use: (instance: number) => T): T {
    const instance = this.service.create();
    try {
      return use(instance);
    } finally {
      this.service.close(instance);
    }
  }

  /** The JSON answer to an HTTP request. */
  http(req: IncomingMessage, url: URL, body: unknown): unknown {
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /health':
        return { status: 'healthy' };
      case 'GET /metadata':
        return {
          name: this.options.envId,
          description: this.options.description ?? `mage-rl's ${this.options.envId} env`,
          readme_content: null,
          version: null,
          author: null,
          documentation_url: 'https://github.com/mage-rl/mage-rl/tree/main/packages/env-remote#readme',
        };
      case 'GET /schema':
        return this.schemas;
      case 'GET /state':
        return this.stateOf(null);
      case 'POST /reset': {
        const data = parsedBody(openEnvResetData, body, 422);
        return this.withInstance((i) => {
          const { observation, metadata } = this.reset(i, data.seed ?? null, data);
          return { ...observation, metadata };
        });
      }
      case 'POST /step': {
        const { action } = parsedBody(httpStepBody, body, 422);
        const { message } = parsedBody(textArenaAction, action, 422);
        return this.withInstance((i) => this.step(i, this.reset(i, 0, {}).rules, message));
      }
      case 'GET /ws':
        throw new HttpError(426, '/ws takes WebSocket connections (Upgrade: websocket)');
      default:
        throw noRoute(req.method, url.pathname, ROUTES);
    }
  }
}

/** `textarena_env`'s observation of a mage observation: the rules and the text as the prompt. */
function textArena(rules: string, text: string, events: readonly string[], info: Record<string, unknown>) {
  return {
    prompt: rules === '' ? text : `${rules}\n\n${text}`,
    messages: events.map((content) => ({ sender_id: -1, content, category: 'GAME' })),
    current_player_id: 0,
    legal_players: [0],
    info,
  };
}

function validated<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const errors = r.error.issues
    .slice(0, 10)
    .map((i) => ({ loc: i.path.map(String), msg: i.message, type: i.code }));
  throw new WsError('VALIDATION_ERROR', 'Invalid message', { errors });
}

/** A failure of the env service as an OpenEnv error: bad input, a lost instance, or the env failing. */
function asWsError(error: unknown): WsError {
  if (error instanceof WsError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof HttpError) {
    if (error.status === 400) return new WsError('VALIDATION_ERROR', message);
    if (error.status === 404) return new WsError('SESSION_ERROR', message);
    if (error.status === 503) return new WsError('CAPACITY_REACHED', message);
  }
  return new WsError('EXECUTION_ERROR', message);
}

function sendError(ws: WebSocket, error: WsError): void {
  ws.send(
    JSON.stringify({ type: 'error', data: { message: error.message, code: error.code, ...error.extra } }),
  );
}

/** The mage reset fields without the nulls OpenEnv clients may send for absent ones. */
function withoutNulls(data: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of ['env', 'attempt', 'style', 'seat', 'opponent', 'options'] as const) {
    if (data[key] !== undefined && data[key] !== null) picked[key] = data[key];
  }
  return picked;
}
