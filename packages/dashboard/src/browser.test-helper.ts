/** Headless Chromium for the dashboard's browser tests: Debian's `chromium` (scripts/ensure-chromium.sh). */

import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** The browser binary: `MAGE_CHROMIUM`, else Debian's. */
export function chromiumPath(): string | null {
  const candidates = [process.env.MAGE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => typeof p === 'string' && p !== '' && existsSync(p)) ?? null;
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === null)
    throw new Error('No chromium: run scripts/ensure-chromium.sh or set MAGE_CHROMIUM.');
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
}

/** A page that records console errors and uncaught exceptions into `errors`. */
export async function openPage(
  browser: Browser,
  width = 1400,
  height = 1000,
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width, height });
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
  return { page, errors };
}
