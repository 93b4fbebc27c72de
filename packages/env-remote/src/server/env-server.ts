/**
 * `mage env-serve`: one of mage-rl's envs served over HTTP in the WebShop dialect, plus the fields of
 * `served-protocol.ts`. `session_id` is the task seed. Bound to 127.0.0.1 unless told otherwise; request
 * bodies and concurrent requests are limited; a bad request gets a 4xx with a JSON `{error}`, an env that
 * throws a 500 with a JSON `{error}` — the server itself never stops on input.
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type EnvV1, firstIssue, type OpponentV1, type PromptStyle, type Seat } from '@mage-rl/core';
import {
  closeServer,
  createHardenedServer,
  type HardeningOptions,
  HttpError,
  listenOn,
  readJsonBody,
  requestGuard,
} from '@mage-rl/core/http';
import { z } from 'zod';
import { servedResetExtra } from '../served-protocol';
import { EnvService } from './env-service';

export interface EnvServerOptions {
  /** The env id, for `/info` and for the reset answers. */
  readonly envId: string;
  /** Builds the env for a reset's options (throws `ConfigError` on bad options → 400). */
  readonly createEnv: (options: Readonly<Record<string, unknown>>) => EnvV1;
  /** The options used when a reset sends none. */
  readonly defaultOptions?: Readonly<Record<string, unknown>>;
  /** Opponents by id (two-player envs); throws on an unknown id (→ 400). */
  readonly createOpponent?: (id: string) => OpponentV1;
  /** The opponent when a reset names none (`--opponent`). */
  readonly defaultOpponent?: string;
  readonly defaultStyle?: PromptStyle;
  readonly defaultSeat?: Seat;
  /** Live instances at most (`/create` answers 503 beyond). Default 1024. */
  readonly maxInstances?: number;
  /** Largest request body in bytes (413 beyond). Default 65 536. */
  readonly maxBodyBytes?: number;
  /** Requests handled at once (503 beyond). Default 64. */
  readonly maxConcurrent?: number;
  /** Distinct env option sets kept built at once (oldest dropped). Default 16. */
  readonly maxEnvVariants?: number;
  /** An instance untouched this long is dropped (default 30 min). */
  readonly instanceTtlMs?: number;
  /** Largest number in a client-chosen opponent id such as `mcts-<N>` (default 2,000). */
  readonly maxOpponentCost?: number;
  /** Timeouts, connection cap and allowed origins (defaults: `@mage-rl/core/http`). */
  readonly http?: Omit<HardeningOptions, 'host'>;
  /** A line per failed request, for the server's log. */
  readonly log?: (line: string) => void;
}

const envIdx = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const resetBody = servedResetExtra.extend({
  env_idx: envIdx,
  session_id: z.number().int().min(0).max(0xffffffff).nullable().optional(),
});
const stepBody = z.object({
  env_idx: envIdx,
  action: z.string().max(100_000),
  invalid_reason: z.string().max(2000).optional(),
});
const parseBody = z.object({ env_idx: envIdx, text: z.string().max(1_000_000) });
const closeBody = z.object({ env_idx: envIdx });

export interface RunningEnvServer {
  readonly server: Server;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts the server on `host:port` (port 0: a free port). */
export async function startEnvServer(
  options: EnvServerOptions,
  listen: { readonly host?: string; readonly port: number },
): Promise<RunningEnvServer> {
  const host = listen.host ?? '127.0.0.1';
  const server = createEnvServer(options, host);
  const port = await listenOn(server, host, listen.port);
  const shown = host.includes(':') ? `[${host}]` : host;
  return { server, port, url: `http://${shown}:${port}`, close: () => closeServer(server) };
}

/** The server (not listening yet); `host` is the address it will bind, whose names `Host` may carry. */
export function createEnvServer(options: EnvServerOptions, host = '127.0.0.1'): Server {
  const state = new EnvService(options);
  const maxConcurrent = options.maxConcurrent ?? 64;
  const maxBody = options.maxBodyBytes ?? 65_536;
  const hardening: HardeningOptions = { ...options.http, host };
  const guard = requestGuard(hardening);
  let inFlight = 0;
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    guard.check(req);
    // The body is read before a slot is taken: a slow sender holds a socket until the 408, not a slot.
    const body = req.method === 'POST' ? await readJsonBody(req, maxBody) : undefined;
    if (inFlight >= maxConcurrent)
      throw new HttpError(503, `busy: more than ${maxConcurrent} requests at once; retry later`);
    inFlight++;
    try {
      await handle(state, req, res, body);
    } finally {
      inFlight--;
    }
  };
  return createHardenedServer(hardening, (req, res) => {
    answer(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (status >= 500) options.log?.(`${req.method} ${req.url}: ${message}`);
      if (!res.headersSent) send(res, status, { error: message });
      else res.destroy();
    });
  });
}

async function handle(
  service: EnvService,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const route = `${req.method} ${url.pathname}`;
  const query = (name: string) => envIdx.safeParse(Number(url.searchParams.get(name) ?? 'NaN'));
  switch (route) {
    case 'GET /':
      return send(res, 200, 'ok');
    case 'GET /info':
      return send(res, 200, service.info());
    case 'GET /list_envs':
      return send(res, 200, service.ids());
    case 'POST /create':
      return send(res, 200, service.create());
    case 'POST /reset':
      return send(res, 200, service.reset(parsed(resetBody, body)));
    case 'POST /parse':
      return send(res, 200, service.parse(parsed(parseBody, body)));
    case 'POST /step':
      return send(res, 200, service.step(parsed(stepBody, body)));
    case 'POST /close':
      return send(res, 200, service.close(parsed(closeBody, body).env_idx));
    case 'GET /available_actions':
    case 'GET /observation':
    case 'GET /instruction_text': {
      const idx = query('env_idx');
      if (!idx.success) throw new HttpError(400, `${url.pathname} needs ?env_idx=<instance id>`);
      return send(res, 200, service.read(url.pathname, idx.data));
    }
    default: {
      const known = [
        'GET /',
        'POST /create',
        'POST /reset',
        'POST /step',
        'POST /parse',
        'POST /close',
        'GET /available_actions',
        'GET /observation',
        'GET /instruction_text',
        'GET /info',
        'GET /list_envs',
      ];
      const pathKnown = known.some((k) => k.endsWith(` ${url.pathname}`));
      throw new HttpError(
        pathKnown ? 405 : 404,
        pathKnown
          ? `${req.method} is not allowed on ${url.pathname}`
          : `no endpoint ${url.pathname}; endpoints: ${known.join(', ')}`,
      );
    }
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function parsed<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const { path, message } = firstIssue(r.error);
  throw new HttpError(400, `bad request body: ${path === '' ? '' : `'${path}': `}${message}`);
}
