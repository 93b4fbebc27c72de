/**
 * The HTTP hardening the three mage servers share (`mage serve`, `mage env-serve`, `mage dashboard`):
 * timeouts that answer 408, a connection cap that closes idle sockets first, the Host / Origin /
 * Content-Type checks that keep web pages out, a size-limited JSON body reader, listening that fails
 * fast, and a shutdown that closes every connection. Node's `http` only. Design: architecture/serve.md
 * ("What is allowed from where"); why it lives in core: architecture/decisions.md.
 */

import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { Duplex } from 'node:stream';

/** An error a request handler throws to answer `status` with `message` (a JSON `{ error }` in the mage servers). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A request refused before (or while) its handler ran: the server answers `status` with `message`. */
export class HttpRefusal extends HttpError {
  constructor(
    status: number,
    message: string,
    readonly code: string,
  ) {
    super(status, message);
    this.name = 'HttpRefusal';
  }
}

export interface HardeningOptions {
  /** The address the server binds (its names are allowed in `Host`). */
  readonly host: string;
  /** Origins (`http://host:port`) allowed besides the server's own (`--allow-origin`). */
  readonly allowOrigins?: readonly string[];
  /** Time to receive a request's headers (default 10 s; 408 after). */
  readonly headersTimeoutMs?: number;
  /** Time to receive a whole request, body included (default 30 s; 408 after). */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive socket stays open (default 5 s). */
  readonly keepAliveTimeoutMs?: number;
  /** Open sockets at most (default 256): at the cap idle ones are closed, then new ones refused. */
  readonly maxConnections?: number;
}

export const HARDENING_DEFAULTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
} as const;

/**
 * An `http.Server` with the timeouts and the connection cap set. Node answers 408 itself when the
 * headers or the body arrive too slowly; the check runs every `min(1 s, headers timeout / 2)`. Sockets
 * handed to `upgrade` count as busy until they close.
 */
export function createHardenedServer(
  options: HardeningOptions,
  listener: RequestListener,
  /** Takes over connections that ask for an upgrade (a WebSocket); without it they are answered as requests. */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
): Server {
  const headersTimeout = options.headersTimeoutMs ?? HARDENING_DEFAULTS.headersTimeoutMs;
  const requestTimeout = Math.max(
    options.requestTimeoutMs ?? HARDENING_DEFAULTS.requestTimeoutMs,
    headersTimeout,
  );
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? HARDENING_DEFAULTS.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 2))),
    },
    listener,
  );
  const cap = options.maxConnections ?? HARDENING_DEFAULTS.maxConnections;
  /** Open sockets (in connection order) and how many requests each is answering. */
  const sockets = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    if (sockets.size >= cap) {
      // The oldest idle socket (connected but not mid-request) makes room; without one the newcomer goes.
      const idle = [...sockets].find(([, busy]) => busy === 0)?.[0];
      if (idle === undefined) {
        socket.destroy();
        return;
      }
      sockets.delete(idle);
      idle.destroy();
    }
    sockets.set(socket, 0);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    if (sockets.has(socket)) sockets.set(socket, (sockets.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const n = sockets.get(socket);
      if (n !== undefined) sockets.set(socket, Math.max(0, n - 1));
    });
  });
  if (upgrade) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      // An upgraded socket holds a session: busy for good, so the cap never closes it as idle.
      if (sockets.has(req.socket)) sockets.set(req.socket, 1);
      upgrade(req, socket, head);
    });
  }
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const text = JSON.stringify({ error: status === 408 ? 'request timeout' : 'bad request' });
    socket.end(
      `HTTP/1.1 ${status} ${status === 408 ? 'Request Timeout' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  });
  return server;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

const WILDCARD = new Set(['0.0.0.0', '::', '']);

/** The host names a request may carry in `Host` for a server bound to `host`. */
export function allowedHostNames(host: string): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const bound = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (!WILDCARD.has(bound)) names.add(bound);
  else {
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) names.add(a.address.toLowerCase());
  }
  return names;
}

/** `host[:port]` (or `[v6]:port`) without the port, lower-cased. */
function hostNameOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') < 0 ? undefined : h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

/** The request checks every mage server runs before routing. */
export interface RequestGuard {
  /** Throws `HttpRefusal` (421 forged Host, 403 cross-site Origin, 415 POST that is not JSON). */
  check(req: IncomingMessage): void;
}

export function requestGuard(options: HardeningOptions): RequestGuard {
  const names = allowedHostNames(options.host);
  const origins = new Set((options.allowOrigins ?? []).map((o) => o.replace(/\/+$/, '').toLowerCase()));
  return {
    check(req) {
      const host = req.headers.host;
      if (host !== undefined && !names.has(hostNameOf(host)) && !isLoopback(hostNameOf(host)))
        throw new HttpRefusal(
          421,
          "The Host header names none of this server's addresses (a DNS-rebinding page?).",
          'bad_host',
        );
      const origin = req.headers.origin;
      if (origin !== undefined) {
        const o = origin.toLowerCase();
        const same =
          host !== undefined &&
          (o === `http://${host.toLowerCase()}` || o === `https://${host.toLowerCase()}`);
        if (!same && !origins.has(o))
          throw new HttpRefusal(
            403,
            `Requests from the web origin '${origin}' are refused; start the server with --allow-origin ${origin} to allow it.`,
            'cross_origin',
          );
      }
      if (req.method === 'POST') {
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (type !== 'application/json')
          throw new HttpRefusal(
            415,
            'POST bodies must be sent as Content-Type: application/json.',
            'bad_content_type',
          );
      }
    },
  };
}

/** Reads a JSON body of at most `maxBytes` (413 beyond it, 400 when it is not JSON; `{}` when empty). */
export function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const tooLarge = () =>
    new HttpRefusal(
      413,
      `The request body exceeds this server's limit of ${maxBytes} bytes.`,
      'request_too_large',
    );
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= maxBytes) chunks.push(c);
    });
    req.on('error', () => reject(new HttpRefusal(400, 'The request body was cut off.', 'bad_body')));
    req.on('aborted', () => reject(new HttpRefusal(400, 'The request body was cut off.', 'bad_body')));
    req.on('end', () => {
      if (size > maxBytes) return reject(tooLarge());
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new HttpRefusal(400, 'The request body is not JSON.', 'invalid_json'));
      }
    });
  });
}

/** Listens on `host:port`; rejects (and closes the server) when it cannot, so the caller can exit at once. */
export async function listenOn(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => {
      server.close();
      reject(error);
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Stops accepting, closes idle sockets at once and every other one after `graceMs` (default 2 s);
 * resolves when the server has closed. Callers end their streams (with an error event) first.
 */
export function closeServer(server: Server, graceMs = 2_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) {
      server.closeAllConnections();
      resolve();
      return;
    }
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The warning a server prints when it binds an address other machines can reach; null on loopback. */
export function exposureWarning(command: string, host: string, authenticated: boolean): string | null {
  if (isLoopback(host)) return null;
  return `Warning: ${command} listens on ${host}, reachable from other machines: anyone who can connect can use it${
    authenticated
      ? ' with the API key'
      : ' (no authentication: give --api-key or --api-key-env, or bind 127.0.0.1)'
  }. Put it behind a firewall or an authenticating proxy.`;
}

/** The client a request comes from, for per-client shares. */
export const clientOf = (req: IncomingMessage): string => req.socket.remoteAddress ?? 'unknown';

/** Default ceiling on the number in a client-chosen opponent id (`mcts-2000`: 2,000 simulations a move). */
export const DEFAULT_MAX_OPPONENT_COST = 2_000;

/**
 * Refuses (400) an opponent id a client chose whose cost parameter — the number in ids such as
 * `mcts-<simulations>` — is above `max`: one request must not buy unbounded CPU on the server.
 */
export function checkOpponentCost(id: string, max = DEFAULT_MAX_OPPONENT_COST): void {
  for (const digits of id.match(/\d+/g) ?? []) {
    if (Number(digits) > max)
      throw new HttpRefusal(
        400,
        `The opponent '${id.slice(0, 64)}' costs more than this server allows (parameters up to ${max}).`,
        'opponent_too_costly',
      );
  }
}
