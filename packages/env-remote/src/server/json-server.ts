/**
 * What the two protocols of `mage env-serve` share over HTTP: the hardening of `@mage-rl/core/http`
 * (Host / Origin / Content-Type checks, timeouts, the connection cap), a body limit, a limit on requests
 * handled at once, JSON answers, and an error boundary that answers every failure with a JSON error and
 * keeps the server running (architecture/serve.md, "What is allowed from where").
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { firstIssue } from '@mage-rl/core';
import {
  createHardenedServer,
  type HardeningOptions,
  HttpError,
  readJsonBody,
  requestGuard,
} from '@mage-rl/core/http';
import type { z } from 'zod';

export interface JsonServerOptions {
  readonly hardening: HardeningOptions;
  /** Requests handled at once (503 beyond). */
  readonly maxConcurrent: number;
  /** Largest request body in bytes (413 beyond). */
  readonly maxBodyBytes: number;
  /** A line per failed request with a 5xx, for the server's log. */
  readonly log?: ((line: string) => void) | undefined;
  /** The JSON of an error answer. */
  readonly errorBody: (message: string, status: number) => unknown;
  /** The JSON answered with 200 to a request whose Host / Origin passed and whose body (POST) was read. */
  readonly handle: (req: IncomingMessage, url: URL, body: unknown) => unknown;
  /** Takes over upgrade requests (after the same Host / Origin checks); absent: none are taken. */
  readonly upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/** The server (not listening yet). */
export function createJsonServer(o: JsonServerOptions): Server {
  const guard = requestGuard(o.hardening);
  let inFlight = 0;
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    guard.check(req);
    // The body is read before a slot is taken: a slow sender holds a socket until the 408, not a slot.
    const body = req.method === 'POST' ? await readJsonBody(req, o.maxBodyBytes) : undefined;
    if (inFlight >= o.maxConcurrent)
      throw new HttpError(503, `busy: more than ${o.maxConcurrent} requests at once; retry later`);
    inFlight++;
    try {
      sendJson(res, 200, o.handle(req, new URL(req.url ?? '/', 'http://localhost'), body));
    } finally {
      inFlight--;
    }
  };
  const upgrade = o.upgrade;
  return createHardenedServer(
    o.hardening,
    (req, res) => {
      answer(req, res).catch((error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        const message = error instanceof Error ? error.message : String(error);
        if (status >= 500) o.log?.(`${req.method} ${req.url}: ${message}`);
        if (!res.headersSent) sendJson(res, status, o.errorBody(message, status));
        else res.destroy();
      });
    },
    upgrade &&
      ((req, socket, head) => {
        try {
          guard.check(req);
          upgrade(req, socket, head);
        } catch (error) {
          const status = error instanceof HttpError ? error.status : 500;
          const message = error instanceof Error ? error.message : String(error);
          refuseUpgrade(socket, status, o.errorBody(message, status));
        }
      }),
  );
}

/** Answers an upgrade request with `status` and a JSON body, then closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** `body` checked against `schema`; an `HttpError` (`status`, default 400) naming the first problem otherwise. */
export function parsedBody<T>(schema: z.ZodType<T>, body: unknown, status = 400): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const { path, message } = firstIssue(r.error);
  throw new HttpError(status, `bad request body: ${path === '' ? '' : `'${path}': `}${message}`);
}

/** The 404 (unknown path) or 405 (known path, other method) of a request no route took. */
export function noRoute(method: string | undefined, pathname: string, routes: readonly string[]): HttpError {
  const pathKnown = routes.some((k) => k.endsWith(` ${pathname}`));
  return new HttpError(
    pathKnown ? 405 : 404,
    pathKnown
      ? `${method} is not allowed on ${pathname}`
      : `no endpoint ${pathname}; endpoints: ${routes.join(', ')}`,
  );
}
