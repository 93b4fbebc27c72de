/**
 * `mage env-serve`: one of mage-rl's envs served over HTTP in the WebShop dialect, plus the fields of
 * `served-protocol.ts` (or, with `protocol: 'openenv'`, OpenEnv's: `openenv-server.ts`). `session_id` is
 * the task seed. Bound to 127.0.0.1 unless told otherwise; request
 * bodies and concurrent requests are limited; a bad request gets a 4xx with a JSON `{error}`, an env that
 * throws a 500 with a JSON `{error}` — the server itself never stops on input.
 */

import type { IncomingMessage, Server } from 'node:http';
import type { EnvV1, OpponentV1, PopulationEntry, PromptStyle, Seat } from '@mage-rl/core';
import { closeServer, type HardeningOptions, HttpError, listenOn } from '@mage-rl/core/http';
import { z } from 'zod';
import { servedResetExtra } from '../served-protocol';
import { EnvService } from './env-service';
import { createJsonServer, noRoute, parsedBody } from './json-server';
import { createOpenEnvServer } from './openenv-server';

export interface EnvServerOptions {
  /** The env id, for `/info` and for the reset answers. */
  readonly envId: string;
  /** What the server speaks: the WebShop dialect (default) or OpenEnv's routes and messages. */
  readonly protocol?: 'webshop' | 'openenv';
  /** One line on the env, for OpenEnv's `/metadata`. */
  readonly description?: string;
  /** Builds the env for a reset's options (throws `ConfigError` on bad options → 400). */
  readonly createEnv: (options: Readonly<Record<string, unknown>>) => EnvV1;
  /** The options used when a reset sends none. */
  readonly defaultOptions?: Readonly<Record<string, unknown>>;
  /** Opponents by id (two-player envs); throws on an unknown id (→ 400). */
  readonly createOpponent?: (id: string) => OpponentV1;
  /** The opponent when a reset names none (`--opponent`). */
  readonly defaultOpponent?: string;
  /**
   * Without `defaultOpponent`, the opponents a reset that names none plays: one drawn per task seed,
   * proportional to weight (the env's default training population, as `mage env-serve` passes it).
   */
  readonly defaultPopulation?: { readonly name: string; readonly entries: readonly PopulationEntry[] };
  readonly defaultStyle?: PromptStyle;
  readonly defaultSeat?: Seat;
  /** Live instances at most (`/create` answers 503 beyond; OpenEnv: WebSocket sessions). Default 1024 (OpenEnv: 64). */
  readonly maxInstances?: number;
  /** Largest request body in bytes (413 beyond). Default 65 536. */
  readonly maxBodyBytes?: number;
  /** Requests handled at once (503 beyond). Default 64. */
  readonly maxConcurrent?: number;
  /** Distinct env option sets kept built at once (oldest dropped). Default 16. */
  readonly maxEnvVariants?: number;
  /** An instance untouched this long is dropped (OpenEnv: its session closed); default 30 min. */
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
  if (options.protocol === 'openenv') return createOpenEnvServer(options, host);
  const service = new EnvService(options);
  return createJsonServer({
    hardening: { ...options.http, host },
    maxConcurrent: options.maxConcurrent ?? 64,
    maxBodyBytes: options.maxBodyBytes ?? 65_536,
    log: options.log,
    errorBody: (message) => ({ error: message }),
    handle: (req, url, body) => handle(service, req, url, body),
  });
}

const ROUTES = [
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

function handle(service: EnvService, req: IncomingMessage, url: URL, body: unknown): unknown {
  const query = (name: string) => envIdx.safeParse(Number(url.searchParams.get(name) ?? 'NaN'));
  switch (`${req.method} ${url.pathname}`) {
    case 'GET /':
      return 'ok';
    case 'GET /info':
      return service.info();
    case 'GET /list_envs':
      return service.ids();
    case 'POST /create':
      return service.create();
    case 'POST /reset':
      return service.reset(parsedBody(resetBody, body));
    case 'POST /parse':
      return service.parse(parsedBody(parseBody, body));
    case 'POST /step':
      return service.step(parsedBody(stepBody, body));
    case 'POST /close':
      return service.close(parsedBody(closeBody, body).env_idx);
    case 'GET /available_actions':
    case 'GET /observation':
    case 'GET /instruction_text': {
      const idx = query('env_idx');
      if (!idx.success) throw new HttpError(400, `${url.pathname} needs ?env_idx=<instance id>`);
      return service.read(url.pathname, idx.data);
    }
    default:
      throw noRoute(req.method, url.pathname, ROUTES);
  }
}
