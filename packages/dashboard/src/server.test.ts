import { appendFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { FIRST_PARTY_ENV_DEFINITIONS } from '@mage-rl/recipes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentPlayView } from './agent-play';
import type { PlayView } from './play';
import { type Dashboard, MAX_BODY_BYTES, startDashboard } from './server';
import { teacherAgent } from './teacher-agent.test-helper';
import { FIXTURE_RUN, fixtureLines, partialRun } from './test-fixtures.test-helper';

const games = FIRST_PARTY_ENV_DEFINITIONS.filter((d) => d.opponents?.match);

// biome-ignore lint/suspicious/noExplicitAny: the JSON answers of the API under test, checked by expect.
type Json = any;

async function call(d: Dashboard, path: string, body?: string): Promise<{ status: number; json: Json }> {
  const res = await fetch(
    new URL(path, d.url),
    body === undefined ? {} : { method: 'POST', body, headers: { 'content-type': 'application/json' } },
  );
  const text = await res.text();
  return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : text };
}

/** Reads server-sent events until `until` returns true for one. */
function readEvents(
  d: Dashboard,
  until: (event: string, data: Json) => boolean,
): Promise<{ event: string; data: Json }[]> {
  return new Promise((resolve, reject) => {
    const seen: { event: string; data: Json }[] = [];
    const req = request(new URL('/api/events', d.url), (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!event || data === undefined) continue;
          seen.push({ event, data: JSON.parse(data) });
          if (until(event, seen.at(-1)!.data)) {
            req.destroy();
            resolve(seen);
          }
        }
      });
    });
    req.on('error', (error) => {
      if (!(error as NodeJS.ErrnoException).code?.includes('ECONNRESET')) reject(error);
    });
    req.end();
  });
}

describe('dashboard server', () => {
  let d: Dashboard;
  let growing: string;
  beforeAll(async () => {
    growing = await partialRun(2);
    d = await startDashboard({ runDirs: [FIXTURE_RUN, '/no/such/run', growing], games, pollMs: 50 });
  });
  afterAll(async () => {
    await d.close();
  });

  it('listens on 127.0.0.1 and serves the page, its modules and vega from local files', async () => {
    expect(d.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await call(d, '/')).json).toContain('<script type="module" src="/app.js">');
    for (const path of ['/app.js', '/replay.js', '/play.js', '/util.js', '/style.css']) {
      expect((await call(d, path)).status).toBe(200);
    }
    for (const lib of ['vega', 'vega-lite', 'vega-embed']) {
      const res = await fetch(new URL(`/vendor/${lib}.min.js`, d.url));
      expect(res.status).toBe(200);
      expect((await res.text()).length).toBeGreaterThan(10_000);
    }
  });

  it('reports every run, with the error of a directory that does not exist', async () => {
    const { json } = await call(d, '/api/runs');
    expect(json.runs.map((r: { error: string | null }) => r.error === null)).toEqual([true, false, true]);
    expect(json.runs[1].error).toMatch(/'\/no\/such\/run' does not exist/);
  });

  it('serves the chart specs and evaluation tables of the chosen runs', async () => {
    const { json } = await call(d, '/api/charts?runs=0');
    expect(json.charts.length).toBeGreaterThan(10);
    const pass = json.charts.find((c: { id: string }) => c.id === 'pass-at-k');
    expect(pass.spec.datasets.points).toHaveLength(36);
    expect(json.tables[0].inDomain[0]).toMatchObject({ opponent: 'all opponents' });
    expect(json.tables[0].inDomain[0].passAtK[0]).toHaveProperty('low');
  });

  it('serves replay files by their names only', async () => {
    const files = (await call(d, '/api/runs/0/episodes')).json.files;
    expect(files.map((f: { name: string }) => f.name)).toContain('train-000011.json');
    const record = (await call(d, '/api/runs/0/episodes/train-000011.json')).json;
    expect(record).toMatchObject({ format: 'mage-rl/episodes@1', kind: 'train', iteration: 11 });
    expect((await call(d, '/api/runs/0/episodes/..%2Fconfig.json')).status).toBe(400);
    expect((await call(d, '/api/runs/0/episodes/eval-000002.json')).status).toBe(404);
    expect((await call(d, '/api/runs/9/episodes')).status).toBe(404);
  });

  it('answers bad requests with 4xx JSON errors and keeps serving', async () => {
    expect(await call(d, '/api/nothing')).toMatchObject({ status: 404, json: { error: expect.any(String) } });
    expect(await call(d, '/api/charts?runs=7')).toMatchObject({ status: 404 });
    expect(await call(d, '/api/play', '{not json')).toMatchObject({
      status: 400,
      json: { error: /not JSON/ },
    });
    expect(await call(d, '/api/play', '[1]')).toMatchObject({ status: 400 });
    expect(await call(d, '/api/play', 'x'.repeat(MAX_BODY_BYTES + 1))).toMatchObject({ status: 413 });
    expect(await call(d, '/api/play', '{"game":"chess","opponent":"x"}')).toMatchObject({ status: 400 });
    expect(await call(d, '/api/play/nope/move', '{"action":"1,1"}')).toMatchObject({ status: 400 });
    expect(await call(d, '/../../etc/passwd')).toMatchObject({ status: 404 });
    expect((await call(d, '/api/runs')).status).toBe(200);
  });

  it('plays a whole game of Tic-Tac-Toe over several attempts of the same task', async () => {
    const start = await call(
      d,
      '/api/play',
      JSON.stringify({ game: 'tictactoe', opponent: 'random', attempts: 2, seed: 5 }),
    );
    let view = start.json as PlayView;
    expect(view).toMatchObject({ status: 'your-move', attempt: 0, legal: expect.arrayContaining(['2,2']) });
    const illegal = await call(d, `/api/play/${view.session}/move`, JSON.stringify({ action: '9,9' }));
    expect(illegal).toMatchObject({ status: 400, json: { error: /not a legal move/ } });
    for (let attempt = 0; attempt < 2; attempt++) {
      while (view.status === 'your-move') {
        view = (await call(d, `/api/play/${view.session}/move`, JSON.stringify({ action: view.legal[0] })))
          .json;
      }
      expect(view.results).toHaveLength(attempt + 1);
      if (view.status === 'attempt-over') view = (await call(d, `/api/play/${view.session}/next`, '{}')).json;
    }
    expect(view.status).toBe('finished');
    expect(view.results.map((r) => r.attempt)).toEqual([0, 1]);
    // The same moves against the same opponent and seed give the same result: attempts replay the task.
    expect(view.results[0]).toEqual({ ...view.results[1], attempt: 0 });
  });

  it('plays Kuhn Poker with the opponent card hidden until the end', async () => {
    let view = (
      await call(
        d,
        '/api/play',
        JSON.stringify({ game: 'kuhn-poker', opponent: 'aggressive', seed: 2, attempts: 1 }),
      )
    ).json as PlayView;
    const cards = (view.state as { cards: (string | null)[] }).cards;
    expect(cards[0]).toMatch(/^[JQK]$/);
    expect(cards[1]).toBeNull();
    while (view.status === 'your-move') {
      view = (await call(d, `/api/play/${view.session}/move`, JSON.stringify({ action: view.legal.at(-1) })))
        .json;
    }
    expect((view.state as { cards: (string | null)[] }).cards[1]).toMatch(/^[JQK]$/);
  });

  it('pushes new metrics lines over server-sent events, holding back a half-written one', async () => {
    const all = await fixtureLines();
    const events = readEvents(
      d,
      (event, data) => event === 'metrics' && data.run === '2' && data.lines.length > 0,
    );
    await new Promise((r) => setTimeout(r, 100));
    await appendFile(join(growing, 'metrics.jsonl'), all[2]!.slice(0, 50));
    await new Promise((r) => setTimeout(r, 200));
    await appendFile(join(growing, 'metrics.jsonl'), `${all[2]!.slice(50)}\n`);
    const seen = await events;
    expect(seen[0]?.event).toBe('hello');
    const metrics = seen.filter((e) => e.event === 'metrics' && e.data.run === '2');
    expect(metrics[0]?.data.status.partial).toBe(true);
    expect(metrics.at(-1)?.data.lines).toEqual([JSON.parse(all[2]!)]);
    expect(metrics.at(-1)?.data.status).toMatchObject({ partial: false, lines: 3 });
  });
});

describe('dashboard server: a trained policy that sits second', () => {
  let d: Dashboard;
  beforeAll(async () => {
    const agents = [
      teacherAgent({ seats: 'second' }),
      { ...teacherAgent({ game: 'kuhn-poker', seats: 'second' }), id: 'kuhn-teacher' },
    ];
    d = await startDashboard({ runDirs: [FIXTURE_RUN], games, agents, pollMs: 50 });
  });
  afterAll(async () => {
    await d.close();
  });

  it('lets the person make the first move of Tic-Tac-Toe and of Kuhn Poker over the API', async () => {
    for (const agent of ['teacher', 'kuhn-teacher']) {
      const start = await call(d, '/api/play', JSON.stringify({ agent, attempts: 2, seed: 4 }));
      expect(start).toMatchObject({
        status: 200,
        json: { status: 'your-move', seat: 0, attempt: 0, agent: [] },
      });
      let view = start.json as AgentPlayView;
      const illegal = await call(d, `/api/play/${view.session}/move`, JSON.stringify({ action: '9,9' }));
      expect(illegal).toMatchObject({ status: 400, json: { error: /not a legal move/ } });
      for (let moves = 0; view.status === 'your-move' && moves < 20; moves++) {
        const next = await call(
          d,
          `/api/play/${view.session}/move`,
          JSON.stringify({ action: view.legal[0] }),
        );
        expect(next.status).toBe(200);
        view = next.json;
      }
      expect(view.results.map((r) => r.attempt)).toEqual([0, 1]);
      const over = await call(d, `/api/play/${view.session}/move`, JSON.stringify({ action: '1,1' }));
      expect(over).toMatchObject({ status: 400, json: { error: /game is over/ } });
    }
  });

  it('answers a move made on a view the game has left with 409, and plays on', async () => {
    const start = (await call(d, '/api/play', JSON.stringify({ agent: 'teacher', attempts: 1, seed: 4 })))
      .json as AgentPlayView;
    const move = (action: string) =>
      call(d, `/api/play/${start.session}/move`, JSON.stringify({ action, after: 0 }));
    const [first, second] = await Promise.all([move(start.legal[0]!), move(start.legal[1]!)]);
    expect(first.status).toBe(200);
    expect(second).toMatchObject({ status: 409, json: { error: /made on an earlier position/ } });
    const now = await call(d, `/api/play/${start.session}`);
    expect(now.json).toEqual(first.json);
  });
});
