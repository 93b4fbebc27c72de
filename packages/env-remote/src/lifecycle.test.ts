import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEnvServer, startEnvServer } from './server/env-server';

/** Runs the hold-instance fixture against `url`; resolves with how it ended once it has. */
function holdInstance(
  url: string,
  mode: 'exit' | 'wait',
  onReady: (kill: (signal: NodeJS.Signals) => void) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const script = fileURLToPath(new URL('./__fixtures__/hold-instance.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--conditions=@mage-rl/source', '--import', 'tsx', script, url, mode],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  child.stdout.on('data', (c: Buffer) => {
    if (c.toString().includes('ready')) onReady((s) => child.kill(s));
  });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('closing server instances when the process ends', () => {
  let server: RunningEnvServer;
  let readyInstances = -1;
  const instances = async () => ((await (await fetch(`${server.url}/list_envs`)).json()) as number[]).length;
  beforeAll(async () => {
    server = await startEnvServer({ envId: 'sokoban', createEnv: (o) => createSokoban(o) }, { port: 0 });
  });
  afterAll(() => server.close());

  it('on a normal exit', async () => {
    const end = await holdInstance(server.url, 'exit', () => {});
    expect(end.code).toBe(0);
    expect(await instances()).toBe(0);
  });

  it('on Ctrl-C in a program that does not handle it: closed, then the process still stops by the signal', async () => {
    const end = await holdInstance(server.url, 'wait', (kill) => {
      void instances().then((n) => {
        readyInstances = n;
        kill('SIGINT');
      });
    });
    expect(readyInstances).toBe(1);
    expect(end.signal).toBe('SIGINT');
    expect(await instances()).toBe(0);
  });
});
