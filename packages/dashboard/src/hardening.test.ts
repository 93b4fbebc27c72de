import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIRST_PARTY_ENV_DEFINITIONS } from '@mage-rl/recipes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, startDashboard } from './server';
import { partialRun } from './test-fixtures.test-helper';

const games = FIRST_PARTY_ENV_DEFINITIONS.filter((d) => d.opponents?.match);

function status(
  d: Dashboard,
  path: string,
  o: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, d.url),
      { method: o.method ?? 'GET', headers: o.headers ?? {} },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += String(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}
const json = { 'content-type': 'application/json' };

describe('dashboard: what a web page, a run directory and an idle client may do', () => {
  let d: Dashboard;
  let run: string;
  let outside: string;
  beforeAll(async () => {
    run = await partialRun(2);
    outside = await mkdtemp(join(tmpdir(), 'mage-dash-outside-'));
    await writeFile(join(outside, 'secret.json'), '{"secret":"hunter2"}');
    await symlink(join(outside, 'secret.json'), join(run, 'episodes', 'train-000099.json'));
    d = await startDashboard({ runDirs: [run], games, pollMs: 1000, http: { maxConnections: 8 } });
  });
  afterAll(async () => {
    await d.close();
    await rm(run, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('follows no symlink out of a run directory: a linked episodes file is neither listed nor served', async () => {
    const listed = await status(d, '/api/runs/0/episodes');
    expect(listed.text).not.toContain('train-000099.json');
    const served = await status(d, '/api/runs/0/episodes/train-000099.json');
    expect(served.status).toBe(404);
    expect(served.text).not.toContain('hunter2');
  });

  it('refuses a forged Host, a cross-site Origin, a text/plain POST, a POST to the event stream and mcts-9999999', async () => {
    expect((await status(d, '/api/runs', { headers: { host: 'rebind.attacker.example' } })).status).toBe(421);
    const play = JSON.stringify({ game: 'tictactoe', opponent: 'random' });
    expect(
      (
        await status(d, '/api/play', {
          method: 'POST',
          body: play,
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
    ).toBe(415);
    expect(
      (
        await status(d, '/api/play', {
          method: 'POST',
          body: play,
          headers: { ...json, origin: 'https://attacker.example' },
        })
      ).status,
    ).toBe(403);
    expect((await status(d, '/api/events', { method: 'POST', body: '{}', headers: json })).status).toBe(405);
    const costly = JSON.stringify({ game: 'tictactoe', opponent: 'mcts-9999999' });
    expect((await status(d, '/api/play', { method: 'POST', body: costly, headers: json })).status).toBe(400);
  });

  it('gives play sessions unguessable ids', async () => {
    const body = JSON.stringify({ game: 'tictactoe', opponent: 'random', seed: 5 });
    const ids = await Promise.all(
      [0, 1].map(
        async () =>
          JSON.parse((await status(d, '/api/play', { method: 'POST', body, headers: json })).text)
            .session as string,
      ),
    );
    for (const id of ids) expect(id).toMatch(/^p[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('at its connection cap closes idle sockets so a new page still loads', async () => {
    const idle = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<Socket>((r) => {
            const s: Socket = connect(Number(new URL(d.url).port), '127.0.0.1', () => r(s));
            s.on('error', () => undefined);
          }),
      ),
    );
    expect((await status(d, '/api/runs')).status).toBe(200);
    for (const s of idle) s.destroy();
  });
});

describe('dashboard lifecycle', () => {
  it('closes within 5 s while a request is still being received', async () => {
    const d = await startDashboard({ runDirs: [], games: [] });
    const slow = connect(Number(new URL(d.url).port), '127.0.0.1', () =>
      slow.write(
        'POST /api/play HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{',
      ),
    );
    slow.on('error', () => undefined);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await d.close();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a port in use rejects at once and leaves no timer to keep the process alive', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    await expect(startDashboard({ runDirs: [], games: [], port })).rejects.toThrow(/EADDRINUSE/);
    expect(timers()).toBe(before);
    await new Promise((r) => blocker.close(r));
  });
});
