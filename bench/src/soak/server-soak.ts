/**
 * A fuzz/load soak of the three mage servers (`mage serve`, `mage env-serve`, `mage dashboard`), each in
 * its own process started through the CLI: for a fixed time, `clients` concurrent clients mix normal
 * requests, slow bodies, abandoned requests, idle sockets, forged Origin / Host headers and garbage.
 * Afterwards each server must answer a normal request within 1 s, its RSS must have grown by less than
 * 50 MB, and it must exit within 5 s of SIGTERM. Not a benchmark: it reports pass or fail per server.
 * Run: `pnpm --filter @mage-rl/bench soak -- --seconds 60 --clients 200`. Design: architecture/serve.md.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMageTiny, saveMageTiny } from '@mage-rl/learner';
import { buildMageTinyTokenizer } from '@mage-rl/trainer/internals';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const KEY = 'soak-key';

export interface SoakOptions {
  /** Seconds of load per server. */
  readonly seconds: number;
  /** Seconds of the same load before the RSS baseline is taken. */
  readonly warmupSeconds: number;
  /** Concurrent clients per server. */
  readonly clients: number;
  /** Only the server of this name (`serve`, `env-serve`, `dashboard`). */
  readonly only?: string;
  readonly log?: (line: string) => void;
}

export interface ServerSoakResult {
  readonly server: string;
  /** Answers by status (0: the connection ended without one). */
  readonly statuses: Record<string, number>;
  /** RSS after the warm-up, and after the measured phase. */
  readonly rssBeforeMb: number;
  readonly rssAfterMb: number;
  /** Time of the normal request after the load. */
  readonly answerMs: number;
  readonly exitMs: number;
  readonly ok: boolean;
}

interface Target {
  readonly name: string;
  readonly args: readonly string[];
  readonly ready: RegExp;
  /** Valid requests: [method, path, body, headers]. */
  readonly normal: readonly Req[];
  /** A request that is costly to answer, abandoned mid-way. */
  readonly costly: Req;
}
type Req = readonly [
  method: string,
  path: string,
  body: string | undefined,
  headers?: Record<string, string>,
];

/** A small deterministic generator (xorshift32): the soak's mix is the same every run. */
function rngOf(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

function send(base: URL, r: Req, abortAfterMs?: number): Promise<number> {
  const [method, path, body, headers] = r;
  return new Promise((resolve) => {
    const req = request(
      new URL(path, base),
      {
        method,
        agent: false,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.setTimeout(15_000, () => req.destroy());
    req.end(body);
    if (abortAfterMs !== undefined) setTimeout(() => req.destroy(), abortAfterMs);
  });
}

/** Headers and one byte of a body that never comes; waits until the server hangs up (or `ms`). */
function slowClient(base: URL, ms: number): Promise<number> {
  return new Promise((resolve) => {
    const s = connect(Number(base.port), base.hostname, () =>
      s.write(
        `POST ${base.pathname}x HTTP/1.1\r\nhost: ${base.host}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{`,
      ),
    );
    let got = '';
    s.on('data', (d) => {
      got += String(d);
    });
    const timer = setTimeout(() => s.destroy(), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(got)?.[1] ?? 0));
    };
    s.on('close', done);
    s.on('error', () => undefined);
  });
}

function idleSocket(base: URL, ms: number): Promise<number> {
  return new Promise((resolve) => {
    const s = connect(Number(base.port), base.hostname);
    s.on('error', () => undefined);
    const timer = setTimeout(() => s.destroy(), ms);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(0);
    });
  });
}

function start(target: Target): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@mage-rl/source',
      '--import',
      'tsx',
      join(repo, 'packages/cli/src/bin.ts'),
      ...target.args,
    ],
    { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MAGE_API_KEY: KEY } },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${target.name} did not start: ${out}`)), 120_000);
    const onData = (d: Buffer) => {
      out += String(d);
      const m = target.ready.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: new URL(m[1]) });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => {
      out += String(d);
    });
    child.once('exit', (code) => reject(new Error(`${target.name} exited (${code}): ${out}`)));
  });
}

async function soakOne(target: Target, o: SoakOptions): Promise<ServerSoakResult> {
  const { child, url } = await start(target);
  const pid = child.pid as number;
  const statuses: Record<string, number> = {};
  const count = (s: number) => {
    statuses[s] = (statuses[s] ?? 0) + 1;
  };
  let deadline = 0;
  const forgedOrigin = { origin: 'https://attacker.example' };
  const forgedHost = { host: 'rebind.attacker.example' };
  const client = async (i: number) => {
    const rand = rngOf(i + 1);
    while (Date.now() < deadline) {
      const p = rand();
      const normal = target.normal[Math.floor(rand() * target.normal.length)] as Req;
      if (p < 0.45) count(await send(url, normal));
      else if (p < 0.55) count(await slowClient(url, 1_000 + rand() * 2_000));
      else if (p < 0.7) count(await send(url, target.costly, 5 + rand() * 50));
      else if (p < 0.8)
        count(await send(url, [normal[0], normal[1], normal[2], { ...normal[3], ...forgedOrigin }]));
      else if (p < 0.88)
        count(await send(url, [normal[0], normal[1], normal[2], { ...normal[3], ...forgedHost }]));
      else if (p < 0.94) count(await idleSocket(url, 500 + rand() * 1_500));
      else
        count(
          await send(url, ['POST', normal[1], '{"garbage', { ...normal[3], 'content-type': 'text/plain' }]),
        );
    }
  };
  // Warm-up at the same load (code paths compiled, the model runner's buffers sized for every batch
  // shape the mix produces), then the measured phase: the RSS baseline is taken between the two.
  deadline = Date.now() + o.warmupSeconds * 1000;
  await Promise.all(Array.from({ length: o.clients }, (_, i) => client(i + 1_000_000)));
  await new Promise((r) => setTimeout(r, 500));
  const rssBeforeMb = rssMb(pid);
  for (const k of Object.keys(statuses)) delete statuses[k];
  deadline = Date.now() + o.seconds * 1000;
  await Promise.all(Array.from({ length: o.clients }, (_, i) => client(i)));
  await new Promise((r) => setTimeout(r, 500));
  const t0 = performance.now();
  const last = await send(url, target.normal[0] as Req);
  const answerMs = performance.now() - t0;
  const rssAfterMb = rssMb(pid);
  const t1 = performance.now();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killTimer);
  const exitMs = performance.now() - t1;
  const ok = last === 200 && answerMs < 1_000 && rssAfterMb - rssBeforeMb < 50 && exitMs < 5_000;
  const result = { server: target.name, statuses, rssBeforeMb, rssAfterMb, answerMs, exitMs, ok };
  o.log?.(JSON.stringify(result));
  return result;
}

/** Soaks the three servers one after the other (a tiny model for `mage serve`, Tic-Tac-Toe for the others). */
export async function soakServers(o: SoakOptions): Promise<ServerSoakResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'mage-soak-'));
  try {
    const tokenizer = buildMageTinyTokenizer([]);
    const model = await createMageTiny(tokenizer, { seed: 1, runner: 'local' });
    await saveMageTiny(join(dir, 'tiny'), model, tokenizer, { note: 'soak' });
    await model.dispose();
    const auth = { authorization: `Bearer ${KEY}` };
    const chat = (maxTokens: number, n: number) =>
      JSON.stringify({
        model: 'tiny',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: maxTokens,
        n,
      });
    const run = join(repo, 'packages/dashboard/src/__fixtures__/ttt-smoke');
    const targets: Target[] = [
      {
        name: 'serve',
        args: ['serve', join(dir, 'tiny'), '--port', '0', '--served-model-name', 'tiny'],
        ready: /at (http:\/\/\S+\/v1)/,
        normal: [
          ['GET', '/v1/models', undefined, auth],
          ['POST', '/v1/chat/completions', chat(2, 1), auth],
        ],
        costly: [
          'POST',
          '/v1/completions',
          JSON.stringify({ model: 'tiny', prompt: 'a', max_tokens: 200, n: 8 }),
          auth,
        ],
      },
      {
        name: 'env-serve',
        args: ['env-serve', 'tictactoe', '--port', '0', '--opponent', 'random'],
        ready: /at (http:\/\/\S+) /,
        normal: [
          ['GET', '/info', undefined],
          ['POST', '/create', '{}'],
        ],
        costly: ['POST', '/reset', JSON.stringify({ env_idx: 0, opponent: 'mcts-2000' })],
      },
      {
        name: 'dashboard',
        args: ['dashboard', run, '--port', '0'],
        ready: /at (http:\/\/\S+\/) /,
        normal: [
          ['GET', '/api/runs', undefined],
          ['GET', '/api/charts', undefined],
          ['POST', '/api/play', JSON.stringify({ game: 'tictactoe', opponent: 'random' })],
        ],
        costly: ['POST', '/api/play', JSON.stringify({ game: 'tictactoe', opponent: 'mcts-2000' })],
      },
    ];
    const results: ServerSoakResult[] = [];
    for (const t of targets) if (o.only === undefined || o.only === t.name) results.push(await soakOne(t, o));
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i < 0 ? fallback : Number(process.argv[i + 1]);
  };
  const results = await soakServers({
    seconds: arg('seconds', 60),
    warmupSeconds: arg('warmup', 10),
    clients: arg('clients', 200),
    ...(process.argv.includes('--only')
      ? { only: String(process.argv[process.argv.indexOf('--only') + 1]) }
      : {}),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}
