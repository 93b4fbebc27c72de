import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture, waitFor } from '../testing/cli.test-helper';

describe('mage dashboard', () => {
  it('serves the page and the runs (a missing one reported) until SIGTERM', async () => {
    const c = capture();
    const done = runCli(['dashboard', '/no/such/run', '--port', '0'], c.io);
    const [, url] = await waitFor(c.out, /at (http:\/\/127\.0\.0\.1:\d+\/)/);
    const runs = (await (await fetch(new URL('/api/runs', url))).json()) as { runs: { error: string }[] };
    expect(runs.runs[0]?.error).toMatch(/does not exist/);
    const games = (await (await fetch(new URL('/api/play/games', url))).json()) as {
      games: { id: string }[];
    };
    expect(games.games.map((g: { id: string }) => g.id)).toEqual(
      expect.arrayContaining(['tictactoe', 'kuhn-poker']),
    );
    expect(await (await fetch(url as string)).text()).toContain('mage-rl dashboard');
    process.emit('SIGTERM');
    expect(await done).toBe(0);
    expect(c.out()).toMatch(/Stopped by SIGTERM/);
  });

  it('--json prints the address and the runs it follows', async () => {
    const c = capture();
    const done = runCli(['dashboard', '/no/such/run', '--port', '0', '--json'], c.io);
    await waitFor(c.out, /\}\n$/);
    const printed = JSON.parse(c.out()) as { url: string; runs: string[] };
    expect(printed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(printed.runs).toEqual(['/no/such/run']);
    expect((await fetch(new URL('/api/runs', printed.url))).status).toBe(200);
    process.emit('SIGTERM');
    expect(await done).toBe(0);
  });

  it('refuses a bad --port and a port in use as user errors naming --port', async () => {
    const bad = capture();
    expect(await runCli(['dashboard', '--port', 'eighty'], bad.io)).toBe(1);
    expect(bad.err()).toMatch(/--port must be an integer/);
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    const busy = capture();
    expect(await runCli(['dashboard', '--port', String(port)], busy.io)).toBe(1);
    expect(busy.err()).toMatch(/mage: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE.*--port/);
    await new Promise((r) => blocker.close(r));
  });
});
