#!/usr/bin/env node
// Screenshots of the dashboard's three views (curves, replay, play) for docs/, from real run directories:
//   node scripts/dashboard-screenshots.mjs <run-dir> [more run dirs…]   (after `pnpm build`)
// Writes docs/dashboard-curves.png, docs/dashboard-replay.png and docs/dashboard-play.png.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { startDashboard } = await import(join(root, 'packages/dashboard/dist/index.js'));
const { FIRST_PARTY_ENV_DEFINITIONS } = await import(join(root, 'packages/recipes/dist/index.js'));
const require = createRequire(join(root, 'packages/dashboard/package.json'));
const puppeteer = (await import(require.resolve('puppeteer-core'))).default;

const runDirs = process.argv.slice(2);
if (runDirs.length === 0) {
  console.error('usage: node scripts/dashboard-screenshots.mjs <run-dir> [more run dirs…]');
  process.exit(1);
}
const games = FIRST_PARTY_ENV_DEFINITIONS.filter((d) => d.opponents?.match);
const dashboard = await startDashboard({ runDirs, games });
const browser = await puppeteer.launch({
  executablePath: process.env.MAGE_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1 });
  await page.goto(dashboard.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  await page.screenshot({ path: join(root, 'docs/dashboard-curves.png') });

  await page.goto(`${dashboard.url}#replay`);
  await page.waitForSelector('body[data-replay-ready="true"]', { timeout: 60_000 });
  // The last run given (a board game reads best), at the first turn after a reflection between attempts.
  const runs = await page.$$eval('#replay-run option', (options) => options.map((o) => o.value));
  if (runs.length > 1) {
    await page.select('#replay-run', runs.at(-1));
    await page.waitForFunction(() => document.querySelectorAll('#replay-steps li').length > 0);
    await new Promise((r) => setTimeout(r, 500));
  }
  // A meta-episode of several attempts (its label chains the attempts' outcomes with arrows).
  const episodes = await page.$$eval('#replay-episode option', (options) =>
    options.map((o) => ({ value: o.value, text: o.textContent ?? '' })),
  );
  const several = episodes.find((e) => e.text.includes('→'));
  if (several) {
    await page.select('#replay-episode', several.value);
    await new Promise((r) => setTimeout(r, 500));
  }
  const steps = await page.$$eval('#replay-steps li', (items) => items.map((li) => li.className));
  const after = steps.indexOf('reflection') + 2;
  if (after > 1) await page.click(`#replay-steps li[data-step="${after}"]`);
  await page.screenshot({ path: join(root, 'docs/dashboard-replay.png') });

  await page.goto(`${dashboard.url}#play`);
  await page.waitForSelector('#play-game option[value="tictactoe"]');
  await page.select('#play-game', 'tictactoe');
  await page.select('#play-opponent', 'pattern-centre-first');
  await page.click('#play-start');
  await page.waitForSelector('body[data-play-status="your-move"]');
  for (const cell of [0, 8]) {
    await page.click(`.board button.cell[data-cell="${cell}"]:not(:disabled)`).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
  }
  await page.screenshot({ path: join(root, 'docs/dashboard-play.png') });
  console.log('wrote docs/dashboard-curves.png, docs/dashboard-replay.png, docs/dashboard-play.png');
} finally {
  await browser.close();
  await dashboard.close();
}
