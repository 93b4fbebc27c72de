/**
 * A blocking JSON client of one env server: timeouts, retries with exponential backoff on connection
 * errors, and `RemoteEnvError`s that name the server, the endpoint and the fix.
 */

import { firstIssue } from '@mage-rl/core';
import type { z } from 'zod';
import { RemoteEnvError } from '../errors';
import { sleepSync } from './blocking-worker';
import { SyncHttp } from './sync-http';

export interface RetryPolicy {
  /** Whole-request limit in milliseconds. */
  readonly timeoutMs: number;
  /** Further tries after a connection error (refused, reset, unreachable). */
  readonly retries: number;
  /** Wait before the first retry; doubled before each next one. */
  readonly retryDelayMs: number;
}

/** Longest answer accepted from an env server. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** Errors where the request never reached the server: every request may be retried after them. */
const NOT_SENT = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
/** Errors after which the request may have been applied: only idempotent requests are retried. */
const MAYBE_SENT = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_SOCKET']);

export interface CallOptions {
  /** Safe to send twice (reads, `create`, `reset`): also retried after resets and timeouts. */
  readonly idempotent: boolean;
}

export class JsonClient {
  private readonly http = new SyncHttp();
  readonly base: string;

  constructor(
    base: string,
    readonly policy: RetryPolicy,
    /** What the server is, for messages: `the ALFWorld server`. */
    readonly label: string,
  ) {
    this.base = base.replace(/\/+$/, '');
  }

  get<T>(endpoint: string, query: Record<string, string | number>, schema: z.ZodType<T>): T {
    const search = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    const path = search ? `${endpoint}?${search}` : endpoint;
    return this.call('GET', path, undefined, schema, { idempotent: true });
  }

  post<T>(endpoint: string, body: unknown, schema: z.ZodType<T>, options: CallOptions): T {
    return this.call('POST', endpoint, JSON.stringify(body ?? {}), schema, options);
  }

  /** Stops the client's HTTP worker. */
  close(): void {
    this.http.close();
  }

  private call<T>(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    schema: z.ZodType<T>,
    options: CallOptions,
  ): T {
    const reply = this.send(method, path, body, options);
    const where = `${method} ${this.base}${path}`;
    if (reply.status < 200 || reply.status >= 300) {
      throw new RemoteEnvError(
        `${this.label} answered ${where} with HTTP ${reply.status}: ${excerpt(reply.body)}. Check that --env-url points at the right server (and its version; see the env-remote README).`,
        { context: { url: this.base, endpoint: path, reason: 'http-status', status: reply.status } },
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(reply.body);
    } catch {
      throw new RemoteEnvError(
        `${this.label} answered ${where} with text that is not JSON: ${excerpt(reply.body)}.`,
        {
          context: { url: this.base, endpoint: path, reason: 'bad-response' },
        },
      );
    }
    const serverError = errorField(json);
    if (serverError !== undefined) {
      throw new RemoteEnvError(`${this.label} reported an error for ${where}: ${serverError}`, {
        context: { url: this.base, endpoint: path, reason: 'server-error' },
      });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const { path: at, message } = firstIssue(parsed.error);
      throw new RemoteEnvError(
        `${this.label} answered ${where} with an unexpected shape${at === '' ? '' : ` at '${at}'`}: ${message}; got ${excerpt(reply.body)}. This client follows the protocol described in the env-remote README.`,
        { context: { url: this.base, endpoint: path, reason: 'bad-response' } },
      );
    }
    return parsed.data;
  }

  /** The server's answer, after retries; a `RemoteEnvError` when it never came. */
  private send(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    options: CallOptions,
  ): { status: number; body: string } {
    const url = `${this.base}${path}`;
    const result = withRetries(this.policy, options.idempotent, () => {
      const reply = this.http.request({
        method,
        url,
        ...(body === undefined ? {} : { body }),
        timeoutMs: this.policy.timeoutMs,
        maxResponseBytes: MAX_RESPONSE_BYTES,
      });
      return reply.kind === 'response' ? { ok: reply } : { error: reply };
    });
    if ('ok' in result) return result.ok;
    throw this.failure(method, path, result.error, result.waited);
  }

  private failure(method: string, path: string, error: TransportError, waited: number): RemoteEnvError {
    return unanswered(this.label, this.base, `${method} ${path}`, path, error, waited, this.policy);
  }
}

/** A request that failed on the way: the error code (`ECONNREFUSED`, `ETIMEDOUT` …) and its message. */
export interface TransportError {
  readonly code: string;
  readonly message: string;
}

/**
 * Runs `attempt` until it succeeds, or fails with an error that may not be retried, or the policy's
 * retries are spent (waiting `retryDelayMs`·2^i before retry i+1). A request that never reached the
 * server is retried whatever it is; after a reset or a timeout only an `idempotent` one is.
 */
export function withRetries<T>(
  policy: RetryPolicy,
  idempotent: boolean,
  attempt: () => { readonly ok: T } | { readonly error: TransportError },
): { readonly ok: T } | { readonly error: TransportError; readonly waited: number } {
  let waited = 0;
  let last: TransportError = { code: 'EUNKNOWN', message: 'no answer' };
  for (let i = 0; i <= policy.retries; i++) {
    if (i > 0) {
      const delay = policy.retryDelayMs * 2 ** (i - 1);
      sleepSync(delay);
      waited += delay;
    }
    const r = attempt();
    if ('ok' in r) return r;
    last = r.error;
    if (!(NOT_SENT.has(last.code) || (idempotent && MAYBE_SENT.has(last.code)))) break;
  }
  return { error: last, waited };
}

/**
 * The error of a request that got no answer: `what` (`GET /schema`, `the WebSocket session`) at `base`,
 * the transport error, the time spent retrying and the fix (a slow server, or an absent one).
 */
export function unanswered(
  label: string,
  base: string,
  what: string,
  endpoint: string,
  error: TransportError,
  waited: number,
  policy: RetryPolicy,
): RemoteEnvError {
  const timeout = error.code === 'ETIMEDOUT';
  const tries = waited > 0 ? ` (retried with backoff for ${(waited / 1000).toFixed(1)} s)` : '';
  const fix = timeout
    ? `The server is up but slow or stuck; raise the env option timeoutMs (now ${policy.timeoutMs} ms) or check the server's log.`
    : `Is the server running? Start it (see the env-remote README) or fix --env-url.`;
  return new RemoteEnvError(
    `${label} at ${base} did not answer ${what}: ${error.message} [${error.code}]${tries}. ${fix}`,
    { context: { url: base, endpoint, reason: timeout ? 'timeout' : 'unreachable', code: error.code } },
  );
}

/** AgentGym's servers report failures as `{"error": "…"}` with status 200. */
function errorField(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const error = (json as Record<string, unknown>).error;
  if (error === undefined || error === null) return undefined;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** A short single-line piece of a body, for messages. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
