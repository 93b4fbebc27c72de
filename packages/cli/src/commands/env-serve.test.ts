import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRng } from '@mage-rl/core';
import { closeRemoteEnvs, opponentForSeed } from '@mage-rl/env-remote';
import { envDefinition } from '@mage-rl/recipes';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture, commandLine, runCaptured, runJson, useTempDir } from '../testing/cli.test-helper';
import { serveEnv } from './env-serve';

const BIN = fileURLToPath(new URL('../bin.ts', import.meta.url));
/** A standard OpenEnv client in Python (standard library only, no mage code). */
const PY_CLIENT = fileURLToPath(new URL('../__fixtures__/openenv_client.py', import.meta.url));
const python = spawnSync('python3', ['--version']).status === 0;
const NO_PYTHON = python ? '' : ' [skipped: no python3 on this machine]';

/** What the Python client prints after playing `count` games with bare resets. */
interface PythonGames {
  readonly health: unknown;
  readonly name: string;
  readonly games: readonly {
    metadata: Record<string, unknown>;
    end_metadata: Record<string, unknown>;
    steps: number;
    reward: number;
    last_event: string;
  }[];
  readonly bad_json: string;
  readonly state: { step_count: number };
  readonly closed: unknown;
}

async function runPython<T>(args: readonly string[]): Promise<T> {
  const { stdout } = await promisify(execFile)('python3', [PY_CLIENT, ...args], { timeout: 60_000 });
  return JSON.parse(stdout) as T;
}

/** The env's `balanced` population: what `mage env-serve` draws from without --opponent. */
function balanced(env: string) {
  const entries = envDefinition(env).opponents?.populations.balanced;
  if (!entries) throw new Error(`${env} has no balanced population`);
  return entries;
}

/** `mage env-serve <args>` in a child process; resolves once it prints its address. */
function startServe(args: readonly string[]): Promise<{ url: string; port: number; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--conditions=@mage-rl/source', '--import', 'tsx', BIN, 'env-serve', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = / at (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
      if (m?.[1] && m[2]) resolve({ url: m[1], port: Number(m[2]), child });
    });
    child.once('exit', (code) => reject(new Error(`mage env-serve exited with ${code}: ${err}`)));
  });
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** The run's metrics.jsonl without wall-clock fields. */
async function metrics(runDir: string): Promise<{ type: string; iteration: number }[]> {
  const text = await readFile(join(runDir, 'metrics.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line, (key, value) => (key === 'timing' ? undefined : value)));
}

/** The flags of a local `mage env-serve` on a free port, as the command receives them. */
const serveFlags = {
  port: '0',
  host: '127.0.0.1',
  seat: 'first',
  style: 'verbose',
  maxInstances: '8',
  maxBodyBytes: '1024',
  maxConcurrent: '4',
};

describe('mage env-serve', () => {
  it('refuses envs that already live on a server, bad options and unknown opponents before listening', async () => {
    const never = new AbortController().signal;
    const base = serveFlags;
    const c = capture();
    await expect(serveEnv('alfworld', base, c.io, never)).rejects.toThrow(
      /already runs on a server of its own/,
    );
    await expect(serveEnv('sokoban', { ...base, option: ['boxes=99'] }, c.io, never)).rejects.toThrow(
      /sokoban\.boxes/,
    );
    await expect(serveEnv('tictactoe', { ...base, opponent: 'grandmaster' }, c.io, never)).rejects.toThrow(
      /grandmaster/,
    );
    await expect(serveEnv('sokoban', { ...base, port: '70000' }, c.io, never)).rejects.toThrow(
      /--port must be/,
    );
    const r = await runCaptured(commandLine('env-serve chess'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Known env ids: .*sokoban/);
  });

  it('warns on a non-loopback bind and says which signal stopped it', async () => {
    const c = capture();
    const done = runCli(
      ['env-serve', 'tictactoe', '--port', '0', '--host', '0.0.0.0', '--opponent', 'random'],
      c.io,
    );
    await expect.poll(() => c.out(), { timeout: 10_000 }).toMatch(/at http/);
    expect(c.err()).toMatch(/reachable from other machines.*--api-key/);
    process.emit('SIGTERM');
    await done;
    expect(c.err()).toContain('mage env-serve: stopped by SIGTERM.');
  });

  it('serves until stopped, printing its address', async () => {
    const stop = new AbortController();
    const c = capture();
    const base = { ...serveFlags, json: true };
    const serving = serveEnv('kuhn-poker', { ...base, opponent: 'cfr' }, c.io, stop.signal);
    await expect.poll(() => c.out(), { timeout: 10_000 }).toContain('"url"');
    const printed = JSON.parse(c.out()) as { url: string };
    expect(printed).toMatchObject({ env: 'kuhn-poker', opponent: 'cfr', population: null });
    const { url } = printed;
    expect(await (await fetch(`${url}/info`)).json()).toMatchObject({ env: 'kuhn-poker', opponent: 'cfr' });
    stop.abort();
    await serving;
    await expect(fetch(url)).rejects.toThrow();
  });
});

describe(`a standard OpenEnv client against mage env-serve --protocol openenv with no --opponent${NO_PYTHON}`, () => {
  const servers: ChildProcess[] = [];
  afterAll(() => Promise.all(servers.map(kill)));

  it.skipIf(!python)(
    'plays whole Tic-Tac-Toe and Kuhn Poker games with bare resets, against opponents drawn per seed',
    async () => {
      for (const env of ['tictactoe', 'kuhn-poker']) {
        const server = await startServe([env, '--protocol', 'openenv', '--port', '0']);
        servers.push(server.child);
        const summary = await runPython<PythonGames>([server.url, '6', '1']);
        expect(summary).toMatchObject({
          health: { status: 'healthy' },
          name: env,
          bad_json: 'INVALID_JSON',
          closed: ['close', 1000],
        });
        // Seedless resets play the session's seeds 0, 1, 2 …, each against its seed's draw.
        expect(summary.games.map((g) => g.metadata)).toEqual(
          summary.games.map((_, seed) => ({
            env,
            seed,
            attempt: 0,
            opponent: opponentForSeed(balanced(env), seed),
          })),
        );
        expect(new Set(summary.games.map((g) => g.metadata.opponent)).size).toBeGreaterThan(1);
        for (const game of summary.games) {
          expect(game.end_metadata).toEqual(game.metadata);
          expect(game.steps).toBeGreaterThan(0);
          // Whole games: each ends in a win, a loss or a draw, scored as the env scores it.
          expect(env === 'tictactoe' ? [10, -10, 0] : [5, -5, 10, -10]).toContain(game.reward);
        }
        expect(summary.state.step_count).toBe(summary.games.at(-1)?.steps);
      }
    },
    120_000,
  );

  it.skipIf(!python)(
    "deals Kuhn Poker's new-deal hands per attempt as in process when the client sends the attempt",
    async () => {
      const server = await startServe([
        'kuhn-poker',
        ...['--protocol', 'openenv', '--port', '0', '--option', 'mode=new-deal'],
      ]);
      servers.push(server.child);
      const seed = 4;
      const served = await runPython<{ prompt: string; metadata: Record<string, unknown> }[]>([
        server.url,
        'deals',
        String(seed),
        '3',
      ]);
      const opponent = opponentForSeed(balanced('kuhn-poker'), seed);
      const kuhn = envDefinition('kuhn-poker');
      const local = kuhn.create({ mode: 'new-deal' }).createEpisode({
        seed,
        seat: 'first',
        style: 'verbose',
        rng: createRng(seed),
        opponent: kuhn.opponents!.create(opponent),
      });
      const deals = [0, 1, 2].map((attempt) => local.reset(attempt).text);
      // The seed deals differently per attempt: a server that saw attempt 0 every time would fail here.
      expect(new Set(deals).size).toBeGreaterThan(1);
      for (const [attempt, text] of deals.entries()) {
        expect(served[attempt]?.prompt, `attempt ${attempt}`).toContain(text);
        expect(served[attempt]?.metadata).toEqual({ env: 'kuhn-poker', seed, attempt, opponent });
      }
    },
    120_000,
  );
});

describe('a run against mage env-serve sokoban in another process (slow: warm start + three short runs)', () => {
  const tmp = useTempDir('mage-remote-');
  const servers: ChildProcess[] = [];
  afterAll(async () => {
    closeRemoteEnvs();
    await Promise.all(servers.map(kill));
  });

  it('trains and evaluates exactly like the in-process env; a killed server stops the run with a clear error, and it resumes', async () => {
    const server = await startServe(['sokoban', '--port', '0']);
    servers.push(server.child);
    const common = [
      ...commandLine('--env sokoban --method mage --preset smoke --seed 3'),
      '--cache-dir',
      join(tmp.path, 'cache'),
    ];
    const local = join(tmp.path, 'local');
    const remote = join(tmp.path, 'remote');
    await runJson(['train', ...common, '--run-dir', local]);
    await runJson(['train', ...common, '--env-url', server.url, '--run-dir', remote]);
    const [a, b] = [await metrics(local), await metrics(remote)];
    expect(b.map((l) => l.type)).toEqual(['rollout', 'update', 'rollout', 'update', 'eval']);
    expect(b).toEqual(a);

    // mage eval of the trained run: the same metrics in process and over HTTP.
    const evalArgs = [
      ...commandLine('eval --env sokoban --method reflexion --episodes 3 --attempts 2 --preset smoke'),
      '--policy',
      local,
    ];
    const evalLocal = await runJson<{ metrics: unknown }>(evalArgs);
    const evalRemote = await runJson<{ metrics: unknown }>([...evalArgs, '--env-url', server.url]);
    expect(evalRemote.metrics).toEqual(evalLocal.metrics);

    // Kill the server once the first iteration is checkpointed: the run fails fast and says why.
    const killed = join(tmp.path, 'killed');
    const args = ['train', ...common, '--env-url', server.url, '--run-dir', killed, '--iterations', '3'];
    const watcher = setInterval(() => {
      void metrics(killed)
        .then((lines) => {
          if (lines.some((l) => l.type === 'update')) void kill(server.child);
        })
        .catch(() => {});
    }, 100);
    const started = Date.now();
    const failed = await runCaptured(args).finally(() => clearInterval(watcher));
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(
      new RegExp(`${server.url.replace(/\./g, '\\.')} did not answer .*Is the server running\\?`),
    );
    expect(Date.now() - started).toBeLessThan(300_000);
    const before = await metrics(killed);
    expect(before.filter((l) => l.type === 'update').length).toBeGreaterThanOrEqual(1);

    // The same address again, then --resume: the run completes its three iterations.
    const again = await startServe(['sokoban', '--port', String(server.port)]);
    servers.push(again.child);
    await runJson([...args, '--resume']);
    const after = await metrics(killed);
    expect(after.filter((l) => l.type === 'update').map((l) => l.iteration)).toEqual([0, 1, 2]);
    expect(after[0]).toEqual(a[0]); // the first rollout, before the iteration count matters
  }, 900_000);
});

describe('ALFWorld and WebShop from the command line', () => {
  it('train without --model stops before any warm start or request, saying to bring a model', async () => {
    for (const env of ['alfworld', 'webshop']) {
      const r = await runCaptured([
        ...commandLine(`train --env ${env} --preset smoke --env-url http://127.0.0.1:9`),
        '--run-dir',
        join(tmpdir(), 'never'),
      ]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`Env '${env}' has no warm-start teacher.*--model <dir>`));
      expect(r.err).not.toMatch(/pretraining|ECONNREFUSED/);
    }
    const noUrl = await runCaptured(commandLine('train --env webshop --preset smoke --show-config'));
    expect(noUrl.code).toBe(1);
    expect(noUrl.err).toMatch(/webshop\.url.*--env-url/);
    const shown = await runJson<{ env: { options: Record<string, unknown> } }>(
      commandLine('train --env alfworld --preset smoke --env-url http://127.0.0.1:36001 --show-config'),
    );
    expect(shown.env.options).toEqual({ split: 'train', url: 'http://127.0.0.1:36001' });
  });
});
