/**
 * `mage dashboard --agent <run>` in headless Chromium against a run the test trains with `mage train
 * --preset smoke`, the agent sitting second so that the person moves first. The `mage` command runs in
 * child processes, as a user runs it: this package does not depend on the trainer or the CLI. Skipped
 * with the other browser tests where no chromium exists (scripts/ensure-chromium.sh installs it).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchBrowser, openPage } from './browser.test-helper';

const BIN = fileURLToPath(new URL('../../cli/src/bin.ts', import.meta.url));
const chromium = chromiumPath();
/** The task seed of the game the person plays. */
const SEED = 3;

/** `mage <args>` in a child process on the sources; its output so far, and its exit. */
function mage(args: readonly string[]) {
  const child = spawn(process.execPath, ['--conditions=@mage-rl/source', '--import', 'tsx', BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

async function until<T>(what: string, read: () => T | undefined, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const statusOf = (page: Page) => page.$eval('body', (b) => b.dataset.playStatus ?? '');
const stones = (page: Page, mark: 'X' | 'O') => page.$$eval(`.board .cell.${mark}`, (c) => c.length);

describe.skipIf(chromium === null)(
  'mage dashboard --agent <a run it trains> in a browser (slow: warm start + 2 iterations)',
  () => {
    let dir = '';
    let dashboard: ChildProcess | undefined;
    let url = '';
    let browser: Browser;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'mage-dashboard-agent-'));
      const run = join(dir, 'run');
      // The agent always sits second, so the person always moves first; a warm start of 16 games over 3
      // epochs makes its moves mostly legal, so the person answers several of them.
      const train = mage([
        ...['train', '--env', 'tictactoe', '--method', 'mage', '--preset', 'smoke', '--seed', '1'],
        ...['--set', 'rollout.seats=second', '--set', 'warmStart.groups=16', '--set', 'warmStart.epochs=3'],
        ...['--set', 'train.evaluate=false', '--cache-dir', join(dir, 'cache'), '--run-dir', run, '--json'],
      ]);
      const code = await train.exited;
      if (code !== 0) throw new Error(`mage train exited with ${code}: ${train.err()}`);
      const served = mage(['dashboard', '--port', '0', '--agent', run, '--json']);
      dashboard = served.child;
      const printed = await until(
        'the dashboard address',
        () => /"url": "(http:\/\/127\.0\.0\.1:\d+\/)"/.exec(served.out())?.[1],
        60_000,
      );
      url = printed;
      browser = await launchBrowser();
    }, 600_000);

    afterAll(async () => {
      await browser?.close();
      if (dashboard && dashboard.exitCode === null) {
        const stopped = new Promise((r) => dashboard?.once('exit', r));
        dashboard.kill('SIGTERM');
        await stopped;
      }
      if (dir !== '') await rm(dir, { recursive: true, force: true });
    });

    it('the person moves first and plays the meta-episode to its end; a second click while the agent answers is not played', async () => {
      const { page, errors } = await openPage(browser);
      // The page lets the server pick the task seed at random; the test fixes it, so the game is the same
      // on every run.
      await page.setRequestInterception(true);
      page.on('request', (request) => {
        const body = request.postData();
        if (request.method() === 'POST' && request.url().endsWith('/api/play') && body !== undefined) {
          void request.continue({ postData: JSON.stringify({ ...JSON.parse(body), seed: SEED }) });
        } else void request.continue();
      });
      await page.goto(`${url}#play`);
      await page.waitForSelector('#play-opponent option[value="agent:run"]', { timeout: 20_000 });
      await page.select('#play-opponent', 'agent:run');
      // The trained policy takes its seat from the task: the seat choice is off.
      expect(await page.$eval('#play-seat', (s) => (s as HTMLSelectElement).disabled)).toBe(true);
      await page.click('#play-start');
      await page.waitForSelector('body[data-play-status="your-move"]', { timeout: 60_000 });
      // The person opens attempt 1 on an empty board, as X, before the agent has written anything.
      expect(await page.$eval('#play-status', (e) => e.textContent)).toMatch(
        /^Attempt 1 of 3 against mage \(run\)\. Your move\.$/,
      );
      expect(await page.$eval('#play-board', (e) => e.textContent)).toMatch(/^You are X\./);
      expect([await stones(page, 'X'), await stones(page, 'O')]).toEqual([0, 0]);
      expect(await page.$$('.agent-move')).toHaveLength(0);

      // A double click on the opening cell: the page sends one move and waits for the agent's answer.
      await page.$eval('.board button.cell:not(:disabled)', (cell) => {
        (cell as HTMLButtonElement).click();
        (cell as HTMLButtonElement).click();
      });
      await page.waitForFunction(() => document.body.dataset.playBusy === undefined, { timeout: 120_000 });
      expect(await page.$eval('#play-status', (e) => e.textContent)).not.toMatch(/Error/);
      expect(await page.$eval('#play-log p', (e) => e.textContent)).toMatch(/^Moves: you: \d,\d$/);
      expect(await page.$$('.agent-move')).not.toHaveLength(0);

      let personMoves = 1;
      for (let i = 0; i < 30 && (await statusOf(page)) === 'your-move'; i++) {
        await page.click('.board button.cell:not(:disabled)');
        await page.waitForFunction(() => document.body.dataset.playBusy === undefined, { timeout: 120_000 });
        expect(await page.$eval('#play-status', (e) => e.textContent)).not.toMatch(/Error/);
        personMoves++;
      }
      expect(await statusOf(page)).toBe('finished');
      expect(personMoves).toBeGreaterThan(1);
      expect(await page.$eval('#play-status', (e) => e.textContent)).toMatch(
        /Game over: (win|loss|draw)(, (win|loss|draw))*\.$/,
      );
      // What the agent wrote: its moves in attempt 1 (it answered the person), and its reflections.
      const headers = await page.$$eval('.agent h4', (h) => h.map((e) => e.textContent));
      expect(headers[0]).toBe('Attempt 1');
      expect(await page.$$eval('.agent-move:not(.invalid)', (m) => m.length)).toBeGreaterThan(0);
      expect(errors).toEqual([]);
      await page.close();
    }, 300_000);
  },
);
