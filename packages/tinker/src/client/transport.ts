/**
 * The HTTP layer of the Tinker client: the settings with their defaults, one POST with a timeout, and
 * the retry loop (exponential backoff on 5xx, 429, 408, timeouts and network errors; `Retry-After`
 * honoured; one idempotency key per request across its retries). Design: architecture/tinker.md.
 */

import { randomUUID } from 'node:crypto';
import { AbortedError, ConfigError, firstIssue, throwIfAborted } from '@mage-rl/core';
import { z } from 'zod';
import { TINKER_CLIENT_DEFAULTS, type TinkerClientOptions } from './options';
import { TinkerError } from './tinker-error';

export type Settings = Required<
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
export type Sent = { readonly kind: 'ok'; readonly text: string } | { readonly kind: 'pending' };

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
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

export const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** `Retry-After` in seconds (the only form the service sends), as milliseconds. */
function retryAfterOf(headers: Headers): number | undefined {
  const value = Number(headers.get('retry-after'));
  return Number.isFinite(value) && value > 0 ? value * 1000 : undefined;
}

const isHttpUrl = (text: string) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);

/** The options with their defaults, validated; a bad one is a `ConfigError` naming it and its value. */
export function resolveSettings(options: TinkerClientOptions): Settings {
  if (!isHttpUrl(options.baseURL)) {
    throw new ConfigError(
      `The Tinker base URL must be an http(s) URL, got ${JSON.stringify(options.baseURL)}.`,
      {
        path: 'baseURL',
        context: { value: options.baseURL },
      },
    );
  }
  const merged = { ...TINKER_CLIENT_DEFAULTS, ...stripUndefined(options) };
  const parsed = settingsSchema.safeParse(merged);
  if (!parsed.success) {
    const { path, value, message } = firstIssue(parsed.error, merged);
    throw new ConfigError(`createTinkerClient: ${path} ${message}, got ${JSON.stringify(value)}.`, {
      path,
      context: { value },
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

export interface Transport {
  /** POSTs `body`, retrying as the module comment says; `pending` for a 408 when `pendingOn408`. */
  send(
    endpoint: string,
    body: unknown,
    signal: AbortSignal | undefined,
    pendingOn408: boolean,
  ): Promise<Sent>;
  /** Parses a 2xx body against `schema`; a `TinkerError` naming the endpoint otherwise. */
  parse<T>(endpoint: string, text: string, schema: z.ZodType<T>): T;
}

export function createTransport(base: string, settings: Settings, options: TinkerClientOptions): Transport {
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? defaultSleep;
  // Idempotency keys must differ between clients (processes) and stay the same across one request's
  // retries; they decide nothing that is computed, so they need no seeded stream.
  const clientKey = randomUUID();
  let requests = 0;

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

  return { send, parse };
}
