/**
 * A blocking JSON client of one env server: timeouts, retries with exponential backoff on connection
 * errors, and `RemoteEnvError`s that name the server, the endpoint and the fix.
 */

import { firstIssue } from '@mage-rl/core';
import type { z } from 'zod';
import { RemoteEnvError } from '../errors';
import { type HttpReply, SyncHttp, sleepSync } from './sync-http';

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
    const { timeoutMs, retries, retryDelayMs } = this.policy;
    const url = `${this.base}${path}`;
    let waited = 0;
    let last: HttpReply | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        const delay = retryDelayMs * 2 ** (attempt - 1);
        sleepSync(delay);
        waited += delay;
      }
      const reply = this.http.request({
        method,
        url,
        ...(body === undefined ? {} : { body }),
        timeoutMs,
        maxResponseBytes: MAX_RESPONSE_BYTES,
      });
      if (reply.kind === 'response') return reply;
      last = reply;
      const retryable = NOT_SENT.has(reply.code) || (options.idempotent && MAYBE_SENT.has(reply.code));
      if (!retryable) break;
    }
    throw this.failure(method, path, last, waited);
  }

  private failure(
    method: string,
    path: string,
    reply: HttpReply | undefined,
    waited: number,
  ): RemoteEnvError {
    const code = reply?.kind === 'error' ? reply.code : 'EUNKNOWN';
    const detail = reply?.kind === 'error' ? reply.message : 'no answer';
    const timeout = code === 'ETIMEDOUT';
    const tries = waited > 0 ? ` (retried with backoff for ${(waited / 1000).toFixed(1)} s)` : '';
    const fix = timeout
      ? `The server is up but slow or stuck; raise the env option timeoutMs (now ${this.policy.timeoutMs} ms) or check the server's log.`
      : `Is the server running? Start it (see the env-remote README) or fix --env-url.`;
    return new RemoteEnvError(
      `${this.label} at ${this.base} did not answer ${method} ${path}: ${detail} [${code}]${tries}. ${fix}`,
      { context: { url: this.base, endpoint: path, reason: timeout ? 'timeout' : 'unreachable', code } },
    );
  }
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
