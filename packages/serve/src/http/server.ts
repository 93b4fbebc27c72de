/**
 * The OpenAI-compatible HTTP server on Node's `http`: routing, the API key, body and concurrency
 * limits, JSON and plain-text answers, and one error boundary per request (an OpenAI-shaped error JSON,
 * never a crash). The endpoints live in `../api/`. Design: architecture/serve.md.
 */

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  clientOf,
  closeServer,
  createHardenedServer,
  type HardeningOptions,
  listenOn,
  readJsonBody,
  requestGuard,
} from '@mage-rl/core/http';
import { chatCompletions } from '../api/chat';
import { completions } from '../api/completions';
import type { ApiContext, ServerContext } from '../api/context';
import type { ServeLimits } from '../api/generation';
import {
  listModels,
  loadLoraAdapter,
  retrieveModel,
  type TextAnswer,
  unloadLoraAdapter,
} from '../api/models';
import type { ServeEngine } from '../engine/engine';
import { ApiError, errorBody, toApiError } from './errors';

export interface OpenAiServerOptions {
  readonly engine: ServeEngine;
  /** Default 127.0.0.1: only this machine can connect. */
  readonly host?: string;
  /** Default 8000; 0 picks a free port. */
  readonly port?: number;
  /** When set, every request but `/health` needs `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** Largest request body (default 1 MiB); larger ones get 413. */
  readonly maxBodyBytes?: number;
  /** Requests handled at once at most (default 256); more get 429. Counted once a body is read. */
  readonly maxConcurrentRequests?: number;
  readonly limits?: Partial<ServeLimits>;
  /**
   * The only directory under which `POST /v1/load_lora_adapter` may read adapters; unset, the endpoint
   * is refused (403). Adapters given at start (`--lora`) are not affected.
   */
  readonly adapterDir?: string;
  /** Largest `adapter_model.safetensors` the endpoint reads (default 1 GiB). */
  readonly maxAdapterBytes?: number;
  /** Timeouts, connection cap and allowed origins (defaults: `@mage-rl/core/http`). */
  readonly http?: Omit<HardeningOptions, 'host'>;
  /** Where failures that are bugs (500) are reported, one line each (default stderr). */
  readonly log?: (line: string) => void;
}

export interface OpenAiServer {
  /** The API base URL, `http://host:port/v1`. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /**
   * Stops accepting, cancels the rows of in-flight requests (a stream ends with an error event and
   * `[DONE]`, other requests get a 503), closes every connection, then the engine.
   */
  close(): Promise<void>;
}

export const DEFAULT_SERVE_LIMITS: ServeLimits = { maxTokens: 2048 };
export const DEFAULT_MAX_BODY_BYTES = 1 << 20;
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 256;
export const DEFAULT_MAX_ADAPTER_BYTES = 1 << 30;

type Handler = (ctx: ApiContext, body: unknown, res: ServerResponse) => unknown;
interface Route {
  readonly method: 'GET' | 'POST';
  readonly handler: Handler;
}

const ROUTES: Readonly<Record<string, Route>> = {
  '/v1/models': { method: 'GET', handler: (ctx) => listModels(ctx) },
  '/v1/chat/completions': { method: 'POST', handler: chatCompletions },
  '/v1/completions': { method: 'POST', handler: completions },
  '/v1/load_lora_adapter': { method: 'POST', handler: (ctx, body) => loadLoraAdapter(ctx, body) },
  '/v1/unload_lora_adapter': { method: 'POST', handler: (ctx, body) => unloadLoraAdapter(ctx, body) },
};

/** The route of `path` (`/v1/models/<id>` included); a malformed `%` escape is a 400. */
function routeOf(path: string): Route | undefined {
  const known = ROUTES[path];
  if (known) return known;
  if (path.startsWith('/v1/models/')) {
    let id: string;
    try {
      id = decodeURIComponent(path.slice('/v1/models/'.length));
    } catch {
      throw new ApiError(400, 'The model id in the URL is not a valid percent-encoded string.', {
        code: 'invalid_url',
      });
    }
    return { method: 'GET', handler: (ctx) => retrieveModel(ctx, id) };
  }
  return undefined;
}

function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function authorised(req: IncomingMessage, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  const given = Buffer.from(String(req.headers.authorization ?? ''));
  const expected = Buffer.from(`Bearer ${apiKey}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Starts the server; resolves once it listens (rejects at once when it cannot). */
export async function createOpenAiServer(options: OpenAiServerOptions): Promise<OpenAiServer> {
  const { engine } = options;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxConcurrent = options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const host = options.host ?? '127.0.0.1';
  const hardening: HardeningOptions = { ...options.http, host };
  const guard = requestGuard(hardening);
  let counter = 0;
  const shared: ServerContext = {
    engine,
    limits: { ...DEFAULT_SERVE_LIMITS, ...options.limits },
    nextId: (prefix) => `${prefix}-${Date.now().toString(36)}${(counter++).toString(36)}`,
    ...(options.adapterDir === undefined ? {} : { adapterDir: options.adapterDir }),
    maxAdapterBytes: options.maxAdapterBytes ?? DEFAULT_MAX_ADAPTER_BYTES,
  };
  let inFlight = 0;
  let stopping = false;
  /** Every request being answered: aborted when its client goes or the server stops. */
  const live = new Set<AbortController>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let counted = false;
    const cancel = new AbortController();
    live.add(cancel);
    res.once('close', () => {
      live.delete(cancel);
      if (!res.writableFinished) cancel.abort();
    });
    try {
      guard.check(req);
      const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
      if (path === '/health') {
        res.writeHead(stopping ? 503 : 200).end();
        return;
      }
      if (!authorised(req, options.apiKey))
        throw new ApiError(401, 'Incorrect API key provided.', { code: 'invalid_api_key' });
      const route = routeOf(path);
      if (route === undefined)
        throw new ApiError(404, `Unknown request URL: ${req.method} ${path}.`, { code: 'unknown_url' });
      if (req.method !== route.method) {
        throw new ApiError(405, `${path} takes ${route.method} requests, not ${req.method}.`, {
          code: 'method_not_allowed',
        });
      }
      // The slot is taken once the body is in: a client that sends slowly holds a socket (until the
      // request timeout answers 408), never a slot.
      const body = route.method === 'POST' ? await readJsonBody(req, maxBody) : undefined;
      if (stopping) throw new ApiError(503, 'The server is shutting down.', { code: 'shutting_down' });
      if (inFlight >= maxConcurrent)
        throw new ApiError(
          429,
          `The server is handling its limit of ${maxConcurrent} requests; retry later.`,
          { code: 'too_many_requests' },
        );
      inFlight++;
      counted = true;
      const ctx: ApiContext = { ...shared, signal: cancel.signal, client: clientOf(req) };
      const result = await route.handler(ctx, body, res);
      if (res.headersSent) return;
      if (isText(result)) {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(result.text);
        return;
      }
      sendJson(res, 200, result);
    } catch (e) {
      const err = toApiError(e);
      if (err.status >= 500 && err.status !== 503)
        log(`mage serve: ${req.method} ${req.url}: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent)
        sendJson(res, err.status, errorBody(err), err.status === 413 ? { connection: 'close' } : {});
      else res.end();
    } finally {
      if (counted) inFlight--;
    }
  }

  const server = createHardenedServer(hardening, (req, res) => {
    handle(req, res).catch((e: unknown) => log(`mage serve: unexpected failure: ${String(e)}`));
  });
  const port = await listenOn(server, host, options.port ?? 8000);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    port,
    server,
    async close() {
      stopping = true;
      for (const c of live) c.abort();
      const deadline = Date.now() + 2_000;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await closeServer(server, 500);
      await engine.close();
    },
  };
}

const isText = (v: unknown): v is TextAnswer =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { text?: unknown }).text === 'string' &&
  Object.keys(v).length === 1;
