/**
 * The real page in headless Chromium (puppeteer-core with Debian's chromium, installed by
 * scripts/ensure-chromium.sh). Skipped with a warning where no chromium exists, except on CI.
 */

import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FIRST_PARTY_ENV_DEFINITIONS } from '@mage-rl/recipes';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchBrowser, openPage } from './browser.test-helper';
import { type Dashboard, startDashboard } from './server';
import { teacherAgent } from './teacher-agent.test-helper';
import { FIXTURE_RUN, fixtureLines, partialRun, syntheticRun } from './test-fixtures.test-helper';

const games = FIRST_PARTY_ENV_DEFINITIONS.filter((d) => d.opponents?.match);
const chromium = chromiumPath();
if (chromium === null && process.env.CI)
  throw new Error('CI needs chromium: scripts/ensure-chromium.sh installs it.');
if (chromium === null)
  console.warn('dashboard browser tests skipped: no chromium (run scripts/ensure-chromium.sh)');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const points = (page: Page, chart: string) =>
  page.$eval(`#chart-${chart}`, (el) => Number((el as HTMLElement).dataset.points));
const messages = (page: Page) =>
  page.$$eval('#messages .message', (els) => els.map((e) => `${e.className}: ${e.textContent}`));

describe.skipIf(chromium === null)('dashboard in a browser', () => {
  let browser: Browser;
  const dashboards: Dashboard[] = [];
  const start = async (runDirs: string[]) => {
    const d = await startDashboard({
      runDirs,
      games,
      agents: [teacherAgent(), teacherAgent({ id: 'forfeiting', forfeitFrom: 0 })],
      pollMs: 100,
    });
    dashboards.push(d);
    return d;
  };
  /** A page on the play view of a dashboard over the fixture run, `attempts` attempts against `opponent` started. */
  const startPlay = async (opponent: string, attempts: number, game?: string) => {
    const d = await start([FIXTURE_RUN]);
    const { page, errors } = await openPage(browser);
    await page.goto(`${d.url}#play`);
    if (game !== undefined) {
      await page.waitForSelector(`#play-game option[value="${game}"]`, { timeout: 20_000 });
      await page.select('#play-game', game);
    }
    await page.waitForSelector(`#play-opponent option[value="${opponent}"]`, { timeout: 20_000 });
    await page.select('#play-opponent', opponent);
    await page.$eval(
      '#play-attempts',
      (e, n) => {
        (e as HTMLInputElement).value = String(n);
      },
      attempts,
    );
    await page.click('#play-start');
    return { page, errors };
  };
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    for (const d of dashboards) await d.close();
  });

  it('loads with no console errors: every chart drawn, the evaluation tables shown', async () => {
    const d = await start([FIXTURE_RUN]);
    const { page, errors } = await openPage(browser);
    await page.goto(d.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    const charts = await page.$$eval('.chart', (els) =>
      els.map((e) => e.querySelectorAll('svg path').length),
    );
    expect(charts.length).toBeGreaterThan(10);
    expect(charts.every((n) => n > 0)).toBe(true);
    expect(await points(page, 'pass-at-k')).toBe(36);
    expect(await page.$$eval('#tables table', (t) => t.length)).toBe(2);
    expect(await page.$eval('#tables', (t) => t.textContent)).toContain('all opponents');
    expect(await messages(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('updates the curves while a run writes metrics.jsonl, and says when a line is half-written', async () => {
    const dir = await partialRun(2);
    const all = await fixtureLines();
    const d = await start([dir]);
    const { page, errors } = await openPage(browser);
    await page.goto(d.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    expect(await points(page, 'pass-at-k')).toBe(3);
    expect(await points(page, 'loss')).toBe(1);
    // Iterations 1 and 2 arrive one line at a time, as training writes them.
    for (const line of all.slice(2, 7)) {
      await appendFile(join(dir, 'metrics.jsonl'), `${line}\n`);
      await sleep(150);
    }
    await page.waitForFunction(
      () => document.querySelector<HTMLElement>('#chart-loss')?.dataset.points === '3',
      {
        timeout: 10_000,
      },
    );
    expect(await points(page, 'pass-at-k')).toBe(9);
    // A half-written line: a message, the curves kept.
    const next = all[7]!;
    await appendFile(join(dir, 'metrics.jsonl'), next.slice(0, 40));
    await page.waitForSelector('#messages .message.warn', { timeout: 10_000 });
    expect((await messages(page)).join('\n')).toMatch(/last line of metrics.jsonl is incomplete/);
    expect(await points(page, 'loss')).toBe(3);
    await appendFile(join(dir, 'metrics.jsonl'), `${next.slice(40)}\n`);
    await page.waitForFunction(() => document.querySelectorAll('#messages .message').length === 0, {
      timeout: 10_000,
    });
    await page.waitForFunction(
      () => document.querySelector<HTMLElement>('#chart-pass-at-k')?.dataset.points === '12',
      {
        timeout: 10_000,
      },
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a message for a run directory that does not exist, beside the runs that do', async () => {
    const d = await start(['/no/such/run-dir', FIXTURE_RUN]);
    const { page, errors } = await openPage(browser);
    await page.goto(d.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    const shown = await messages(page);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/^message error: run-dir: '\/no\/such\/run-dir' does not exist/);
    expect(await page.$eval('#messages .message', (e) => (e as HTMLElement).offsetHeight)).toBeGreaterThan(
      10,
    );
    expect(await points(page, 'loss')).toBe(12);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('replays a meta-episode turn by turn with the reflection between attempts', async () => {
    const d = await start([FIXTURE_RUN]);
    const { page, errors } = await openPage(browser);
    await page.goto(`${d.url}#replay`);
    await page.waitForSelector('body[data-replay-ready="true"]', { timeout: 20_000 });
    const steps = await page.$$eval('#replay-steps li', (els) => els.map((e) => e.className || 'turn'));
    const firstReflection = steps.indexOf('reflection');
    const heads = steps.flatMap((c, i) => (c === 'attempt-head' ? [i] : []));
    expect(heads.length).toBeGreaterThan(1);
    expect(firstReflection).toBeGreaterThan(heads[0]!);
    expect(firstReflection).toBeLessThan(heads[1]!);
    // Stepping: the current turn shows the board, the model's raw output and its reward and advantage.
    await page.click('#replay-next');
    const detail = await page.$eval('#replay-detail', (e) => e.textContent);
    expect(detail).toMatch(/Model output/);
    expect(detail).toMatch(/advantage -?\d/);
    expect(await page.$$eval('#replay-detail .board .cell', (c) => c.length)).toBe(9);
    await page.click(`#replay-steps li[data-step="${firstReflection}"]`);
    expect(await page.$eval('#replay-detail h3', (e) => e.textContent)).toMatch(
      /^Reflection before attempt 2/,
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('plays a full game of Tic-Tac-Toe through clicks, attempt after attempt', async () => {
    const { page, errors } = await startPlay('pattern-centre-first', 2, 'tictactoe');
    for (let attempt = 0; attempt < 2; attempt++) {
      await page.waitForSelector('body[data-play-status="your-move"]');
      for (let moves = 0; moves < 5; moves++) {
        const status = await page.$eval('body', (b) => b.dataset.playStatus);
        if (status !== 'your-move') break;
        const before = await page.$$eval('.board .cell.X', (c) => c.length);
        await page.click('.board button.cell:not(:disabled)');
        await page.waitForFunction(
          (n) =>
            document.querySelectorAll('.board .cell.X').length > n ||
            document.body.dataset.playStatus !== 'your-move',
          {},
          before,
        );
      }
      if (attempt === 0) {
        await page.waitForSelector('#play-next');
        expect(await page.$eval('#play-status', (e) => e.textContent)).toMatch(
          /Attempt over: (win|loss|draw)/,
        );
        await page.click('#play-next');
      }
    }
    await page.waitForSelector('body[data-play-status="finished"]');
    expect(await page.$eval('#play-status', (e) => e.textContent)).toMatch(
      /Game over: (win|loss|draw), (win|loss|draw)\./,
    );
    expect(await page.$$eval('.board button.cell:not(:disabled)', (c) => c.length)).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('plays against a trained policy and shows its reflections between attempts', async () => {
    const { page, errors } = await startPlay('agent:teacher', 2);
    await page.waitForSelector('body[data-play-status="your-move"]');
    for (let moves = 0; moves < 12; moves++) {
      if ((await page.$eval('body', (b) => b.dataset.playStatus)) !== 'your-move') break;
      const before = await page.$eval('#play-log', (e) => e.textContent);
      await page.click('.board button.cell:not(:disabled)');
      await page.waitForFunction(
        (text) => document.querySelector('#play-log')?.textContent !== text,
        {},
        before,
      );
    }
    await page.waitForSelector('body[data-play-status="finished"]');
    const reflection = await page.$eval('.agent-reflection', (e) => e.textContent);
    expect(reflection).toMatch(/^Reflection before attempt 2: ./);
    expect(await page.$$eval('.agent h4', (h) => h.map((e) => e.textContent))).toEqual([
      'Attempt 1',
      'Attempt 2',
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('against a policy that ends every attempt before the person moves: a finished view without a board', async () => {
    const { page, errors } = await startPlay('agent:forfeiting', 2);
    await page.waitForSelector('body[data-play-status="finished"]', { timeout: 10_000 });
    expect(await page.$eval('#play-status', (e) => e.textContent)).toMatch(
      /^Attempt 2 of 2 .* Game over: draw, draw\.$/,
    );
    expect(await page.$eval('#play-board', (e) => e.textContent)).toMatch(/before you had a move/);
    expect(await page.$$eval('#play-board .board', (b) => b.length)).toBe(0);
    expect(await page.$$eval('.agent h4', (h) => h.map((e) => e.textContent))).toEqual([
      'Attempt 1',
      'Attempt 2',
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('stays responsive with 5 runs of 200 iterations loaded', async () => {
    const dirs = await Promise.all([0, 1, 2, 3, 4].map((seed) => syntheticRun(200, seed)));
    const d = await start(dirs);
    const { page, errors } = await openPage(browser);
    const t0 = performance.now();
    await page.goto(d.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
    const loadMs = performance.now() - t0;
    expect(await points(page, 'loss')).toBe(1000);
    // A new line in one run: time until every chart shows it.
    const line = JSON.parse((await fixtureLines())[1]!);
    const t1 = performance.now();
    await appendFile(join(dirs[0]!, 'metrics.jsonl'), `${JSON.stringify({ ...line, iteration: 200 })}\n`);
    await page.waitForFunction(
      () => document.querySelector<HTMLElement>('#chart-loss')?.dataset.points === '1001',
      {
        timeout: 15_000,
      },
    );
    const updateMs = performance.now() - t1;
    // The page answers input meanwhile: switching views is immediate.
    const t2 = performance.now();
    await page.click('nav a[data-view="replay"]');
    await page.waitForSelector('#view-replay:not([hidden])');
    const switchMs = performance.now() - t2;
    const chartMs = Number(await page.$eval('body', (b) => b.dataset.chartMs));
    console.log(
      `5 runs x 200 iterations: page ready ${loadMs.toFixed(0)} ms, live update ${updateMs.toFixed(0)} ms (charts ${chartMs} ms), view switch ${switchMs.toFixed(0)} ms`,
    );
    expect(loadMs).toBeLessThan(20_000);
    expect(updateMs).toBeLessThan(8_000);
    expect(switchMs).toBeLessThan(1_000);
    expect(errors).toEqual([]);
    await page.close();
  });
});
