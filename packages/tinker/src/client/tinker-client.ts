/**
 * An HTTP client of the Tinker REST API: JSON over `fetch`, the API key in `X-API-Key`, a timeout per
 * request, retries with exponential backoff on 5xx, 429, 408, timeouts and network errors (every POST
 * carries an `X-Idempotency-Key` that stays the same across its retries, so a retried request is not
 * applied twice), futures polled with `retrieve_future` until they finish, and session heartbeats in
 * the background. Design: architecture/tinker.md.
 */

import { z } from 'zod';
import {
  createSessionResponseSchema,
  requestFailedSchema,
  tryAgainSchema,
  untypedFutureSchema,
} from '../api/wire';
import type { TinkerClientOptions } from './options';
import { TinkerError } from './tinker-error';
import { createTransport, defaultSleep, resolveSettings } from './transport';

export { TINKER_CLIENT_DEFAULTS, type TinkerClientOptions, type TinkerRetry } from './options';

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

/** A client of the Tinker service at `options.baseURL` (see the module comment). */
export function createTinkerClient(options: TinkerClientOptions): TinkerClient {
  const settings = resolveSettings(options);
  const base = options.baseURL.replace(/\/+$/, '');
  const { send, parse } = createTransport(base, settings, options);
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  let sessionId: string | null = null;
  let opening: Promise<string> | null = null;
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let beats = { sent: 0, failed: 0 } as { sent: number; failed: number; lastError?: string };

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
