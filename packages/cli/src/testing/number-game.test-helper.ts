/**
 * The number-guessing OpenEnv server of env-remote's fixtures (written from OpenEnv's protocol, no mage
 * code), in a child process: the env client blocks this thread while it waits.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { closeRemoteEnvs } from '@mage-rl/env-remote';
import { afterAll, beforeAll } from 'vitest';
import { waitFor } from './cli.test-helper';

const NUMBER_GAME = fileURLToPath(
  new URL('../../../env-remote/src/__fixtures__/openenv-number-game.mjs', import.meta.url),
);

/**
 * A number game for the tests of the enclosing `describe` block, started with `args` before them; after
 * them the remote envs are closed and the server killed. `url` is valid inside the tests.
 */
export function useNumberGame(args: readonly string[] = []): { readonly url: string } {
  let child: ChildProcess | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    const started = spawn(process.execPath, [NUMBER_GAME, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    child = started;
    let out = '';
    started.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    url = (await waitFor(() => out, /listening (\S+)/, 20_000))[1] as string;
  });
  afterAll(() => {
    closeRemoteEnvs();
    child?.kill('SIGKILL');
  });
  return {
    get url(): string {
      if (url === undefined) throw new Error('useNumberGame(): the server runs only inside tests.');
      return url;
    },
  };
}
