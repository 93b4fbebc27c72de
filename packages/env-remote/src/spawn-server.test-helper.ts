/** Starting a test server in a child process (the remote envs block their own thread while they wait). */

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRng, type EnvEpisodeV1, type EnvV1 } from '@mage-rl/core';
import { afterEach } from 'vitest';
import { closeRemoteEnvs } from './lifecycle';

export interface ChildServer {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Runs `script` (`.ts` through tsx, `.mjs` as is) with `args` and waits for its `listening <url>` line. */
export function spawnServer(script: string, args: readonly string[] = []): Promise<ChildServer> {
  const path = fileURLToPath(new URL(`./__fixtures__/${script}`, import.meta.url));
  const flags = script.endsWith('.ts') ? ['--conditions=@mage-rl/source', '--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...flags, path, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${err}`)), 20_000);
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening (\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ url: m[1], child, stop: () => stopChild(child) });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}: ${err}`));
    });
  });
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Starts the transcript server of `__fixtures__/transcripts/<name>.json`. */
export function spawnTranscript(name: string): Promise<ChildServer> {
  const file = fileURLToPath(new URL(`./__fixtures__/transcripts/${name}.json`, import.meta.url));
  return spawnServer('transcript-server.mjs', [file]);
}

/** How many recorded exchanges the transcript server has not seen yet. */
export async function remainingExchanges(server: ChildServer): Promise<number> {
  const r = await fetch(`${server.url}/__remaining`);
  return ((await r.json()) as { remaining: number }).remaining;
}

/**
 * Starts transcript servers for the tests of a `describe`: after each test every remote env is closed and
 * the server it started is stopped.
 */
export function useTranscriptServer(): (name: string) => Promise<ChildServer> {
  let server: ChildServer | undefined;
  afterEach(async () => {
    closeRemoteEnvs();
    await server?.stop();
    server = undefined;
  });
  return async (name) => {
    server = await spawnTranscript(name);
    return server;
  };
}

/** Short timeouts and no retries: a local test server answers at once or the test fails. */
export const FAST_REMOTE = { timeoutMs: 5_000, retries: 0, retryDelayMs: 10 } as const;

/** An in-domain episode of the remote env `create` builds on `url`, for task `seed` (first seat, verbose). */
export function inDomainEpisode<S>(
  create: (options: unknown) => EnvV1<S, string>,
  url: string,
  seed: number,
  options: Record<string, unknown> = {},
): EnvEpisodeV1<S, string> {
  return create({ url, split: 'in-domain', ...FAST_REMOTE, ...options }).createEpisode({
    seed,
    seat: 'first',
    style: 'verbose',
    rng: createRng(seed),
  });
}
