import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveTinyModel, useTempDir } from '../testing/cli.test-helper';

const BIN = fileURLToPath(new URL('../bin.ts', import.meta.url));

/**
 * `mage <args>` as a user runs it, in its own process: its exit code and stderr. A process still running
 * after `limitMs` is killed and reported as `hung` (a server that failed to listen must exit by itself).
 */
function mage(
  args: readonly string[],
  limitMs = 45_000,
): Promise<{ code: number | null; err: string; hung: boolean }> {
  const child = spawn(process.execPath, ['--conditions=@mage-rl/source', '--import', 'tsx', BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, err, hung: signal === 'SIGKILL' });
    });
  });
}

describe('a server command on a port in use', () => {
  const tmp = useTempDir('mage-busy-port-');
  let blocker: Server;
  let port = 0;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => blocker.close(() => r())));

  const busy = () =>
    new RegExp(
      `^mage: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE: the port is in use\\); choose another --port`,
    );

  it('mage dashboard prints why and exits 1 by itself', async () => {
    const r = await mage(['dashboard', '--port', String(port)]);
    expect(r).toMatchObject({ code: 1, hung: false });
    expect(r.err).toMatch(busy());
  }, 60_000);

  it('mage env-serve prints why and exits 1 by itself', async () => {
    const r = await mage(['env-serve', 'sokoban', '--port', String(port)]);
    expect(r).toMatchObject({ code: 1, hung: false });
    expect(r.err).toMatch(busy());
  }, 60_000);

  it('mage serve loads the model, prints why and exits 1 by itself (its engine worker closed)', async () => {
    const dir = await saveTinyModel(join(tmp.path, 'tiny'), 3);
    const r = await mage(['serve', dir, '--port', String(port)]);
    expect(r).toMatchObject({ code: 1, hung: false });
    expect(r.err).toMatch(busy());
    expect(r.err).not.toMatch(/internal error/);
  }, 90_000);
});
