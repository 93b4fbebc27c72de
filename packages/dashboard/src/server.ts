/**
 * `mage dashboard`'s server: node:http on 127.0.0.1 by default. Serves the static page (plain ES modules,
 * no build step) and vega from the local node_modules (no CDN), a JSON API over the runs, their replay
 * files and play sessions, and server-sent events that push new metrics lines as runs write them.
 * Bad requests get a 4xx JSON error; nothing a client sends crashes the server. See architecture/dashboard.md.
 */

import { existsSync } from 'node:fs';
import { lstat, readFile, realpath } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EnvDefinitionV1, EvalStatsV1, PlayAgentV1 } from '@mage-rl/core';
import {
  closeServer,
  createHardenedServer,
  type HardeningOptions,
  HttpError,
  listenOn,
  readJsonBody,
  requestGuard,
} from '@mage-rl/core/http';
import { chartSpec, lastEval, type RunMetrics, runCharts } from '@mage-rl/report';
import { AgentSessions } from './agent-play';
import { PlayError, PlayHost } from './play';
import { EPISODE_FILE, RunWatcher } from './run-watcher';

export interface DashboardOptions {
  readonly runDirs: readonly string[];
  /** Default 127.0.0.1 (only this machine). */
  readonly host?: string;
  /** Default 0: any free port. */
  readonly port?: number;
  /** Games of the play page (env definitions with a `match` game). */
  readonly games?: readonly EnvDefinitionV1[];
  /** Trained policies a person can play against (the CLI's `--agent`). */
  readonly agents?: readonly PlayAgentV1[];
  /** How often run directories are polled, in ms. */
  readonly pollMs?: number;
  /** Timeouts, connection cap and allowed origins (defaults: `@mage-rl/core/http`, 128 connections). */
  readonly http?: Omit<HardeningOptions, 'host'>;
}

export interface Dashboard {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Request bodies larger than this are refused (413). */
export const MAX_BODY_BYTES = 16 * 1024;
/** Concurrent event streams at most (503 beyond). */
export const MAX_EVENT_STREAMS = 32;
/** Open connections at most (idle ones are closed to make room). */
export const MAX_CONNECTIONS = 128;
const MAX_EPISODE_FILE_BYTES = 64 * 1024 * 1024;

const require = createRequire(import.meta.url);

/** The page's files: `static/` beside the built bundle, or beside `src/` when run from sources. */
function staticDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'static'), join(here, '..', 'static')];
  return candidates.find((d) => existsSync(join(d, 'index.html'))) ?? candidates[0]!;
}

/** vega, vega-lite and vega-embed's browser builds from the installed packages. */
function vendorFiles(): Record<string, string> {
  const build = (pkg: string, file: string) => join(dirname(require.resolve(pkg)), file);
  return {
    'vega.min.js': build('vega', 'vega.min.js'),
    'vega-lite.min.js': build('vega-lite', 'vega-lite.min.js'),
    'vega-embed.min.js': build('vega-embed', 'vega-embed.min.js'),
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

/** Per domain: pass@k with Wilson intervals at the last evaluation, overall and per opponent. */
function evalTables(run: RunMetrics) {
  const last: EvalStatsV1 | undefined = lastEval(run) ?? run.evals.at(-1);
  if (!last) return null;
  const rows = (domain: 'inDomain' | 'outOfDomain') => {
    const m = last[domain];
    if (!m) return [];
    const summaries = [['all opponents', m.overall] as const, ...Object.entries(m.byOpponent)];
    return summaries.map(([opponent, s]) => ({
      opponent,
      metaEpisodes: s.metaEpisodes,
      passAtK: s.perAttempt.map((a) => ({ rate: a.passAtK.rate, low: a.passAtK.low, high: a.passAtK.high })),
      invalid: s.invalidActionRate.rate,
    }));
  };
  return {
    run: run.id,
    name: run.name,
    completed: last.completed,
    inDomain: rows('inDomain'),
    outOfDomain: rows('outOfDomain'),
  };
}

/** What the request handlers share. */
interface Context {
  readonly watchers: readonly RunWatcher[];
  readonly play: PlayHost;
  readonly agentPlay: AgentSessions;
  readonly root: string;
  readonly vendor: Record<string, string>;
  readonly streams: Set<ServerResponse>;
}

function watcherOf(ctx: Context, id: string): RunWatcher {
  const w = ctx.watchers.find((x) => x.id === id);
  if (!w)
    throw new HttpError(404, `No run '${id}'; the dashboard follows runs 0..${ctx.watchers.length - 1}.`);
  return w;
}

function selected(ctx: Context, url: URL): RunWatcher[] {
  const ids = url.searchParams.get('runs');
  return ids === null || ids === '' ? [...ctx.watchers] : ids.split(',').map((id) => watcherOf(ctx, id));
}

async function api(ctx: Context, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const parts = url.pathname.split('/').filter(Boolean).slice(1);
  const method = req.method ?? 'GET';
  if (method === 'GET' && parts.length === 1 && parts[0] === 'runs') {
    return sendJson(res, 200, { runs: ctx.watchers.map((w) => w.status()) });
  }
  if (method === 'GET' && parts.length === 1 && parts[0] === 'charts') {
    const runs = selected(ctx, url);
    const metrics = runs.map((w) => w.metrics());
    const charts = runCharts(metrics).map((c) => ({ id: c.id, title: c.title, spec: chartSpec(c) }));
    return sendJson(res, 200, {
      charts,
      tables: metrics.map(evalTables).filter((t) => t !== null),
      runs: runs.map((w) => w.status()),
    });
  }
  if (method === 'GET' && parts[0] === 'runs' && parts[2] === 'episodes' && parts.length === 3) {
    return sendJson(res, 200, { files: await watcherOf(ctx, parts[1]!).episodeFiles() });
  }
  if (method === 'GET' && parts[0] === 'runs' && parts[2] === 'episodes' && parts.length === 4) {
    const w = watcherOf(ctx, parts[1]!);
    const name = parts[3]!;
    if (!EPISODE_FILE.test(name)) throw new HttpError(400, `'${name}' is not an episodes file name.`);
    const path = await episodePath(w.dir, name);
    const info = path === null ? null : await lstat(path).catch(() => null);
    if (path === null || !info?.isFile()) throw new HttpError(404, `The run has no '${name}'.`);
    if (info.size > MAX_EPISODE_FILE_BYTES) throw new HttpError(413, `'${name}' is too large to show.`);
    const text = await readFile(path, 'utf8');
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(text);
    return;
  }
  if (parts[0] === 'play') return playApi(ctx, req, res, parts.slice(1), method);
  throw new HttpError(404, `No API route ${method} ${url.pathname}.`);
}

async function playApi(
  ctx: Context,
  req: IncomingMessage,
  res: ServerResponse,
  parts: string[],
  method: string,
) {
  const agentGame = parts[0] !== undefined && ctx.agentPlay.has(parts[0]);
  if (method === 'GET' && parts.length === 1 && parts[0] === 'games') {
    const agents = ctx.agentPlay.agents.map((a) => ({ id: a.id, name: a.name, game: a.game }));
    return sendJson(res, 200, { games: ctx.play.games(), agents });
  }
  if (method === 'GET' && parts.length === 1) {
    return sendJson(res, 200, agentGame ? ctx.agentPlay.get(parts[0]!) : ctx.play.get(parts[0]!));
  }
  if (method !== 'POST') throw new HttpError(405, 'Use POST to start a game or make a move.');
  const body = (await readJsonBody(req, MAX_BODY_BYTES)) as Record<string, unknown>;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(400, 'The body must be a JSON object.');
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  if (parts.length === 0 && typeof body.agent === 'string') {
    const attempts = num(body.attempts) ?? 3;
    if (!Number.isInteger(attempts) || attempts < 1 || attempts > 10)
      throw new HttpError(400, 'attempts must be an integer in 1..10.');
    const seed = num(body.seed) ?? Math.floor(Math.random() * 1e9);
    return sendJson(res, 200, await ctx.agentPlay.start(body.agent, attempts, seed));
  }
  if (parts.length === 0) {
    return sendJson(
      res,
      200,
      ctx.play.start({
        game: String(body.game ?? ''),
        opponent: String(body.opponent ?? ''),
        ...(num(body.seat) === undefined ? {} : { seat: num(body.seat)! }),
        ...(num(body.attempts) === undefined ? {} : { attempts: num(body.attempts)! }),
        ...(num(body.seed) === undefined ? {} : { seed: num(body.seed)! }),
      }),
    );
  }
  if (parts.length === 2 && parts[1] === 'move') {
    const action = String(body.action ?? '');
    return sendJson(
      res,
      200,
      agentGame
        ? await ctx.agentPlay.move(parts[0]!, action, num(body.after))
        : ctx.play.move(parts[0]!, action),
    );
  }
  if (parts.length === 2 && parts[1] === 'next') return sendJson(res, 200, ctx.play.next(parts[0]!));
  throw new HttpError(404, 'No such play route.');
}

/**
 * The episodes file `name` of the run in `dir`, or null when it (or the `episodes` directory) is a
 * symlink or lies outside the run directory: nothing is followed out of a run.
 */
async function episodePath(dir: string, name: string): Promise<string | null> {
  const root = await realpath(dir).catch(() => null);
  const episodes = await realpath(join(dir, 'episodes')).catch(() => null);
  if (root === null || episodes !== join(root, 'episodes')) return null;
  const path = join(episodes, name);
  const info = await lstat(path).catch(() => null);
  return info?.isFile() && path.startsWith(root + sep) ? path : null;
}

function events(ctx: Context, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET') throw new HttpError(405, 'The event stream takes GET requests only.');
  if (ctx.streams.size >= MAX_EVENT_STREAMS)
    throw new HttpError(503, 'Too many open dashboard pages; close one.');
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  res.write(`event: hello\ndata: ${JSON.stringify({ runs: ctx.watchers.map((w) => w.status()) })}\n\n`);
  ctx.streams.add(res);
  req.on('close', () => ctx.streams.delete(res));
}

async function files(ctx: Context, res: ServerResponse, pathname: string): Promise<void> {
  const name = pathname === '/' ? 'index.html' : pathname.slice(1);
  let path: string | undefined;
  if (name.startsWith('vendor/')) path = ctx.vendor[name.slice('vendor/'.length)];
  else if (/^[a-z][a-z0-9-]*\.(html|js|css)$/.test(name)) path = join(ctx.root, name);
  const body = path ? await readFile(path).catch(() => null) : null;
  if (!path || body === null) throw new HttpError(404, `No file ${pathname}.`);
  res.writeHead(200, {
    'content-type': TYPES[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream',
  });
  res.end(body);
}

/** Starts the dashboard; resolves once it listens. */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const watchers = options.runDirs.map((dir, i) => new RunWatcher(String(i), dir));
  const play = new PlayHost(options.games ?? []);
  const root = staticDir();
  const vendor = vendorFiles();
  const streams = new Set<ServerResponse>();
  const agentPlay = new AgentSessions(options.agents ?? []);
  const ctx: Context = { watchers, play, agentPlay, root, vendor, streams };

  const broadcast = (event: string, data: unknown) => {
    const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of streams) res.write(text);
  };
  let polling = false;
  const pollAll = async () => {
    if (polling) return;
    polling = true;
    try {
      for (const w of watchers) {
        const { lines, changed } = await w.poll();
        if (changed) broadcast('metrics', { run: w.id, lines, status: w.status() });
      }
    } finally {
      polling = false;
    }
  };
  await pollAll();
  const timer = setInterval(() => void pollAll().catch(() => undefined), options.pollMs ?? 500);
  const heartbeat = setInterval(() => {
    for (const res of streams) res.write(': keep-alive\n\n');
  }, 15_000);

  const host = options.host ?? '127.0.0.1';
  const hardening: HardeningOptions = { maxConnections: MAX_CONNECTIONS, ...options.http, host };
  const guard = requestGuard(hardening);
  const server = createHardenedServer(hardening, (req, res) => {
    const handle = async () => {
      guard.check(req);
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/api/events') return events(ctx, req, res);
      if (url.pathname.startsWith('/api/')) return api(ctx, req, res, url);
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'Only GET serves files.');
      return files(ctx, res, url.pathname);
    };
    handle().catch((error: unknown) => {
      const status =
        error instanceof HttpError ? error.status : error instanceof PlayError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (res.headersSent) res.end();
      else sendJson(res, status, { error: status === 500 ? `Internal error: ${message}` : message });
    });
  });
  const stopTimers = () => {
    clearInterval(timer);
    clearInterval(heartbeat);
  };
  try {
    await listenOn(server, host, options.port ?? 0);
  } catch (error) {
    // Nothing may keep the process alive when the port is taken: the caller exits at once.
    stopTimers();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/`,
    server,
    close: async () => {
      stopTimers();
      for (const res of streams) res.end('event: shutdown\ndata: {}\n\n');
      streams.clear();
      await closeServer(server, 1_000);
    },
  };
}
