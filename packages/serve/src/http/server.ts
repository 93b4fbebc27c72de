/**
 * The OpenAI-compatible HTTP server on Node's `http`: routing, the API key, body and concurrency
 * limits, JSON and plain-text answers, and one error boundary per request (an OpenAI-shaped error JSON,
 * never a crash). The endpoints live in `../api/`. Design: architecture/serve.md.
 */

import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletions } from '../api/chat';
import { completions } from '../api/completions';
import type { ApiContext } from '../api/context';
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
  /** When set, every `/v1` request needs `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** Largest request body (default 1 MiB); larger ones get 413. */
  readonly maxBodyBytes?: number;
  /** Requests handled at once at most (default 256); more get 429. */
  readonly maxConcurrentRequests?: number;
  readonly limits?: Partial<ServeLimits>;
  /** Where failures that are bugs (500) are reported (default stderr). */
  readonly log?: (line: string) => void;
}

export interface OpenAiServer {
  /** The API base URL, `http://host:port/v1`. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Stops accepting connections and closes the engine. */
  close(): Promise<void>;
}

export const DEFAULT_SERVE_LIMITS: ServeLimits = { maxTokens: 2048 };
export const DEFAULT_MAX_BODY_BYTES = 1 << 20;
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 256;

type Handler = (ctx: ApiContext, body: unknown, res: ServerResponse) => unknown;

const ROUTES: Readonly<Record<string, { readonly method: 'GET' | 'POST'; readonly handler: Handler }>> = {
  '/v1/models': { method: 'GET', handler: (ctx) => listModels(ctx) },
  '/v1/chat/completions': { method: 'POST', handler: chatCompletions },
  '/v1/completions': { method: 'POST', handler: completions },
  '/v1/load_lora_adapter': { method: 'POST', handler: (ctx, body) => loadLoraAdapter(ctx, body) },
  '/v1/unload_lora_adapter': { method: 'POST', handler: (ctx, body) => unloadLoraAdapter(ctx, body) },
};

/** The route of `path` (`/v1/models/<id>` included). */
function routeOf(path: string): { readonly method: 'GET' | 'POST'; readonly handler: Handler } | undefined {
  const known = ROUTES[path];
  if (known) return known;
  if (path.startsWith('/v1/models/')) {
    const id = decodeURIComponent(path.slice('/v1/models/'.length));
    return { method: 'GET', handler: (ctx) => retrieveModel(ctx, id) };
  }
  return undefined;
}

/** Reads a JSON body of at most `max` bytes (413 beyond it, 400 when it is not JSON). */
function readJson(req: IncomingMessage, max: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  const tooLarge = () =>
    new ApiError(413, `The request body exceeds this server's limit of ${max} bytes.`, {
      code: 'request_too_large',
    });
  if (declared > max) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (size > max) return reject(tooLarge());
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text.trim() === '' ? {} : JSON.parse(text));
      } catch {
        reject(
          new ApiError(400, 'We could not parse the JSON body of your request.', { code: 'invalid_json' }),
        );
      }
    });
  });
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

/** Starts the server; resolves once it listens. */
export async function createOpenAiServer(options: OpenAiServerOptions): Promise<OpenAiServer> {
  const { engine } = options;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxConcurrent = options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let counter = 0;
  const ctx: ApiContext = {
    engine,
    limits: { ...DEFAULT_SERVE_LIMITS, ...options.limits },
    nextId: (prefix) => `${prefix}-${Date.now().toString(36)}${(counter++).toString(36)}`,
  };
  let inFlight = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let counted = false;
    try {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
      if (path === '/health') {
        res.writeHead(200).end();
        return;
      }
      const route = routeOf(path);
      if (route === undefined)
        throw new ApiError(404, `Unknown request URL: ${req.method} ${path}.`, { code: 'unknown_url' });
      if (req.method !== route.method) {
        throw new ApiError(405, `${path} takes ${route.method} requests, not ${req.method}.`, {
          code: 'method_not_allowed',
        });
      }
      if (!authorised(req, options.apiKey))
        throw new ApiError(401, 'Incorrect API key provided.', { code: 'invalid_api_key' });
      if (inFlight >= maxConcurrent)
        throw new ApiError(
          429,
          `The server is handling its limit of ${maxConcurrent} requests; retry later.`,
          { code: 'too_many_requests' },
        );
      inFlight++;
      counted = true;
      const body = route.method === 'POST' ? await readJson(req, maxBody) : undefined;
      const result = await route.handler(ctx, body, res);
      if (res.headersSent) return;
      if (isText(result)) {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(result.text);
        return;
      }
      sendJson(res, 200, result);
    } catch (e) {
      const err = toApiError(e);
      if (err.status >= 500)
        log(
          `mage serve: ${req.method} ${req.url}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
        );
      if (!res.headersSent)
        sendJson(res, err.status, errorBody(err), err.status === 413 ? { connection: 'close' } : {});
      else res.end();
    } finally {
      if (counted) inFlight--;
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => log(`mage serve: unexpected failure: ${String(e)}`));
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8000, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    port,
    server,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await engine.close();
    },
  };
}

const isText = (v: unknown): v is TextAnswer =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { text?: unknown }).text === 'string' &&
  Object.keys(v).length === 1;
