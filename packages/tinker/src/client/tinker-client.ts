/**
 * An HTTP client of the Tinker REST API: JSON over `fetch`, the API key in `X-API-Key`, a timeout per
 * request, retries with exponential backoff on 5xx, 429, 408, timeouts and network errors (every POST
 * carries an `X-Idempotency-Key` that stays the same across its retries, so a retried request is not
 * applied twice), futures polled with `retrieve_future` until they finish, and session heartbeats in
 * the background. Design: architecture/tinker.md.
 */

import { randomUUID } from 'node:crypto';
import { AbortedError, firstIssue, throwIfAborted } from '@mage-rl/core';
import { z } from 'zod';
import {
  createSessionResponseSchema,
  requestFailedSchema,
  tryAgainSchema,
  untypedFutureSchema,
} from '../api/wire';
import { TinkerError } from './tinker-error';

export interface TinkerClientOptions {
  /** The service's base URL, without `/api/v1` (e.g. `https://tinker.example/services/tinker-prod`). */
  readonly baseURL: string;
  /** Sent as `X-API-Key` when set. */
  readonly apiKey?: string;
  /** Limit of one HTTP request, in milliseconds. */
  readonly timeoutMs?: number;
  /** Further tries of a request after a retryable failure. */
  readonly retries?: number;
  /** Wait before the first retry; doubled before each next one, up to `maxRetryDelayMs`. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  /** Wait between two polls of a pending future. */
  readonly pollIntervalMs?: number;
  /** How long a future may stay pending before the call fails. */
  readonly futureTimeoutMs?: number;
  /** Interval of session heartbeats; 0 sends none. */
  readonly heartbeatMs?: number;
  /** Tags of the sessions this client creates. */
  readonly tags?: readonly string[];
  readonly fetch?: typeof fetch;
  /** Waits between retries and polls (tests pass one that records the delays and returns at once). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock of the future timeout, in milliseconds (default `Date.now`). */
  readonly now?: () => number;
  /** Called before each retry. */
  readonly onRetry?: (retry: TinkerRetry) => void;
}

export interface TinkerRetry {
  readonly endpoint: string;
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly delayMs: number;
  /** `HTTP 503`, `timeout`, `network: …`. */
  readonly reason: string;
}

export const TINKER_CLIENT_DEFAULTS = {
  timeoutMs: 120_000,
  retries: 6,
  retryDelayMs: 500,
  maxRetryDelayMs: 30_000,
  pollIntervalMs: 250,
  futureTimeoutMs: 3_600_000,
  heartbeatMs: 10_000,
} as const;

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface HeartbeatStatus {
  readonly sent: number;
  readonly failed: number;
  readonly lastError?: string;
}

export interface TinkerClient {
  readonly baseURL: string;
  /** The session `createSession` opened, or null. */
  readonly sessionId: string | null;
  /** POSTs `body` to `endpoint` (e.g. `/api/v1/create_session`) and checks the answer against `schema`. */
  post<T>(endpoint: string, body: unknown, schema: z.ZodType<T>, options?: CallOptions): Promise<T>;
  /** POSTs a request that answers with a future, then polls the future until it finishes. */
  submit<T>(endpoint: string, body: unknown, schema: z.ZodType<T>, options?: CallOptions): Promise<T>;
  /** Opens a session (once; later calls return the same id) and starts its heartbeats. */
  createSession(options?: CallOptions): Promise<string>;
  heartbeats(): HeartbeatStatus;
  /** Stops the heartbeats. */
  close(): void;
}

type Settings = Required<
  Pick<
    TinkerClientOptions,
    | 'timeoutMs'
    | 'retries'
    | 'retryDelayMs'
    | 'maxRetryDelayMs'
    | 'pollIntervalMs'
    | 'futureTimeoutMs'
    | 'heartbeatMs'
  >
>;

const settingsSchema = z.object({
  timeoutMs: z.number().positive(),
  retries: z.int().min(0),
  retryDelayMs: z.number().min(0),
  maxRetryDelayMs: z.number().min(0),
  pollIntervalMs: z.number().min(0),
  futureTimeoutMs: z.number().positive(),
  heartbeatMs: z.number().min(0),
});

/** The reply of one HTTP try. */
type Reply =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly text: string;
      readonly retryAfterMs?: number;
    }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'network'; readonly message: string };

/** What `send` returns: the body of a 2xx answer, or `pending` for a 408 where the caller asked for it. */
type Sent = { readonly kind: 'ok'; readonly text: string } | { readonly kind: 'pending' };

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortedError(undefined, { cause: signal.reason }));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError(undefined, { cause: signal?.reason }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** `Retry-After` in seconds (the only form the service sends), as milliseconds. */
function retryAfterOf(headers: Headers): number | undefined {
  const value = Number(headers.get('retry-after'));
  return Number.isFinite(value) && value > 0 ? value * 1000 : undefined;
}

function resolveSettings(options: TinkerClientOptions): Settings {
  let url: URL;
  try {
    url = new URL(options.baseURL);
  } catch {
    throw new TinkerError(
      `The Tinker base URL must be an http(s) URL, got ${JSON.stringify(options.baseURL)}.`,
      {
        reason: 'http-status',
        context: { baseURL: options.baseURL },
      },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TinkerError(
      `The Tinker base URL must be an http(s) URL, got ${JSON.stringify(options.baseURL)}.`,
      {
        reason: 'http-status',
        context: { baseURL: options.baseURL },
      },
    );
  }
  const merged = { ...TINKER_CLIENT_DEFAULTS, ...stripUndefined(options) };
  const parsed = settingsSchema.safeParse(merged);
  if (!parsed.success) {
    const { path, value, message } = firstIssue(parsed.error, merged);
    throw new TinkerError(`createTinkerClient: ${path} ${message}, got ${JSON.stringify(value)}.`, {
      reason: 'http-status',
      context: { path },
    });
  }
  return parsed.data;
}

function stripUndefined(options: TinkerClientOptions): Partial<Settings> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(TINKER_CLIENT_DEFAULTS) as (keyof Settings)[]) {
    const value = options[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** A client of the Tinker service at `options.baseURL` (see the module comment). */
export function createTinkerClient(options: TinkerClientOptions): TinkerClient {
  const settings = resolveSettings(options);
  const base = options.baseURL.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  let sessionId: string | null = null;
  let opening: Promise<string> | null = null;
  // Idempotency keys must differ between clients (processes) and stay the same across one request's
  // retries; they decide nothing that is computed, so they need no seeded stream.
  const clientKey = randomUUID();
  let requests = 0;
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let beats = { sent: 0, failed: 0 } as { sent: number; failed: number; lastError?: string };

  async function once(endpoint: string, body: string, key: string, signal?: AbortSignal): Promise<Reply> {
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const response = await doFetch(`${base}${endpoint}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Idempotency-Key': key,
          ...(options.apiKey ? { 'X-API-Key': options.apiKey } : {}),
        },
        body,
        signal: combined,
      });
      const text = await response.text();
      const retryAfterMs = retryAfterOf(response.headers);
      return { kind: 'response', status: response.status, text, ...(retryAfterMs ? { retryAfterMs } : {}) };
    } catch (error) {
      throwIfAborted(signal);
      if (timeout.aborted) return { kind: 'timeout' };
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return { kind: 'network', message: cause?.code ?? cause?.message ?? String(error) };
    }
  }

  async function send(
    endpoint: string,
    body: unknown,
    signal: AbortSignal | undefined,
    pendingOn408: boolean,
  ): Promise<Sent> {
    const text = JSON.stringify(body);
    const key = `mage-${clientKey}-${requests++}`;
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal);
      const reply = await once(endpoint, text, key, signal);
      if (reply.kind === 'response' && reply.status >= 200 && reply.status < 300) {
        return { kind: 'ok', text: reply.text };
      }
      if (reply.kind === 'response' && reply.status === 408 && pendingOn408) return { kind: 'pending' };
      const retryable =
        reply.kind !== 'response' || reply.status >= 500 || reply.status === 429 || reply.status === 408;
      const reason =
        reply.kind === 'response'
          ? `HTTP ${reply.status}`
          : reply.kind === 'timeout'
            ? `timeout after ${settings.timeoutMs} ms`
            : `network: ${reply.message}`;
      if (!retryable && reply.kind === 'response') {
        throw new TinkerError(
          `The Tinker service answered POST ${base}${endpoint} with HTTP ${reply.status}: ${excerpt(reply.text)}.${reply.status === 401 || reply.status === 403 ? ' Check the API key (learner.tinker.apiKeyEnv).' : ''}`,
          { reason: 'http-status', context: { endpoint, status: reply.status } },
        );
      }
      if (attempt >= settings.retries) {
        throw new TinkerError(
          `The Tinker service at ${base} did not answer POST ${endpoint} (${reason}) after ${attempt + 1} tries. Check learner.tinker.baseURL and the service's status.`,
          {
            reason: 'unavailable',
            context: { endpoint, ...(reply.kind === 'response' ? { status: reply.status } : {}) },
          },
        );
      }
      const backoff = Math.min(settings.maxRetryDelayMs, settings.retryDelayMs * 2 ** attempt);
      const delayMs =
        reply.kind === 'response' && reply.retryAfterMs !== undefined
          ? Math.min(settings.maxRetryDelayMs, Math.max(backoff, reply.retryAfterMs))
          : backoff;
      options.onRetry?.({ endpoint, attempt: attempt + 1, delayMs, reason });
      await sleep(delayMs, signal);
    }
  }

  function parse<T>(endpoint: string, text: string, schema: z.ZodType<T>): T {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new TinkerError(
        `The Tinker service answered ${endpoint} with text that is not JSON: ${excerpt(text)}.`,
        {
          reason: 'bad-response',
          context: { endpoint },
        },
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const { path, message } = firstIssue(parsed.error);
      throw new TinkerError(
        `The Tinker service answered ${endpoint} with an unexpected shape${path === '' ? '' : ` at '${path}'`}: ${message}; got ${excerpt(text)}.`,
        { reason: 'bad-response', context: { endpoint } },
      );
    }
    return parsed.data;
  }

  async function post<T>(endpoint: string, body: unknown, schema: z.ZodType<T>, call: CallOptions = {}) {
    const sent = await send(endpoint, body, call.signal, false);
    if (sent.kind === 'pending') throw new Error('unreachable: a 408 is pending only for futures');
    return parse(endpoint, sent.text, schema);
  }

  async function retrieve<T>(requestId: string, endpoint: string, schema: z.ZodType<T>, call: CallOptions) {
    const started = now();
    for (;;) {
      const sent = await send(
        '/api/v1/retrieve_future',
        { request_id: requestId, allow_metadata_only: false },
        call.signal,
        true,
      );
      const json = sent.kind === 'ok' ? parse(endpoint, sent.text, z.unknown()) : undefined;
      if (sent.kind === 'pending' || tryAgainSchema.safeParse(json).success) {
        if (now() - started > settings.futureTimeoutMs) {
          throw new TinkerError(
            `The Tinker request ${requestId} (${endpoint}) was still pending after ${settings.futureTimeoutMs} ms.`,
            { reason: 'future-timeout', context: { endpoint, requestId } },
          );
        }
        await sleep(settings.pollIntervalMs, call.signal);
        continue;
      }
      const failed = requestFailedSchema.safeParse(json);
      if (failed.success) {
        const category = failed.data.category ?? 'unknown';
        throw new TinkerError(
          `The Tinker request ${requestId} (${endpoint}) failed (${category} error): ${failed.data.error}`,
          { reason: 'request-failed', context: { endpoint, requestId, category } },
        );
      }
      return parse(endpoint, JSON.stringify(json), schema);
    }
  }

  async function submit<T>(endpoint: string, body: unknown, schema: z.ZodType<T>, call: CallOptions = {}) {
    const future = await post(endpoint, body, untypedFutureSchema, call);
    return retrieve(future.request_id, endpoint, schema, call);
  }

  function startHeartbeat(id: string): void {
    if (settings.heartbeatMs <= 0) return;
    heartbeat = setInterval(() => {
      send('/api/v1/session_heartbeat', { session_id: id, type: 'session_heartbeat' }, undefined, false).then(
        () => {
          beats = { ...beats, sent: beats.sent + 1 };
        },
        (error: unknown) => {
          beats = { ...beats, failed: beats.failed + 1, lastError: String(error) };
        },
      );
    }, settings.heartbeatMs);
    heartbeat.unref();
  }

  async function openSession(call: CallOptions): Promise<string> {
    const created = await post(
      '/api/v1/create_session',
      {
        tags: [...(options.tags ?? ['mage-rl'])],
        user_metadata: null,
        sdk_version: 'mage-rl-tinker/0.1.0',
        type: 'create_session',
      },
      createSessionResponseSchema,
      call,
    );
    if (created.error_message) {
      throw new TinkerError(`The Tinker service refused a session: ${created.error_message}`, {
        reason: 'request-failed',
        context: { endpoint: '/api/v1/create_session' },
      });
    }
    sessionId = created.session_id;
    startHeartbeat(created.session_id);
    return created.session_id;
  }

  return {
    baseURL: base,
    get sessionId() {
      return sessionId;
    },
    post,
    submit,
    createSession(call = {}) {
      opening ??= openSession(call).catch((error: unknown) => {
        opening = null;
        throw error;
      });
      return opening;
    },
    heartbeats: () => ({ ...beats }),
    close() {
      if (heartbeat !== null) clearInterval(heartbeat);
      heartbeat = null;
    },
  };
}
