#!/usr/bin/env node
// The one command of the README: install everything (frozen lockfile), build, type-check, lint, check the
// code-health bounds (scripts/code-health.mjs), run the examples' smoke scripts, check the published packages
// (scripts/pack-check.mjs) and test.
// Works on a machine that has only Node 20 and npm: pnpm is run through `npx pnpm@<pin>` when missing.
// Usage: npm run verify            (or: node scripts/verify.mjs)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const pin = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).packageManager;

function run(cmd, args, { capture = false } = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: capture ? 'pipe' : 'inherit', encoding: 'utf8' });
  return r;
}

const have = run('pnpm', ['--version'], { capture: true });
const pnpm = have.status === 0 && `pnpm@${have.stdout.trim()}` === pin ? ['pnpm'] : ['npx', '--yes', pin];

function step(title, args) {
  process.stdout.write(`\n==> ${title}\n`);
  const started = Date.now();
  const r = run(pnpm[0], [...pnpm.slice(1), ...args]);
  if (r.status !== 0) {
    process.stdout.write(`\nverify: '${title}' failed (exit ${r.status ?? r.signal}).\n`);
    process.exit(r.status || 1);
  }
  process.stdout.write(`==> ${title}: ok (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}

const results = `${root}.vitest-results.json`;
rmSync(results, { force: true });
step('install (frozen lockfile)', ['install', '--frozen-lockfile']);
step('build', ['run', 'build']);
step('typecheck', ['run', 'typecheck']);
step('lint', ['run', 'lint']);
step('code health', ['run', 'health']);
step('examples smoke', ['--filter', './examples/*', 'run', 'smoke']);
// The published shape: pack every package, install the tarballs with npm 10 and npm 11, type-check and run a
// consumer and the CLI, build and test examples/custom-env outside the repository (scripts/pack-check.mjs).
step('pack check', ['run', 'pack-check']);
process.stdout.write('\n==> test\n');
const test = run(pnpm[0], [
  ...pnpm.slice(1),
  'exec',
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${results}`,
]);
if (existsSync(results)) {
  const r = JSON.parse(readFileSync(results, 'utf8'));
  const skipped = r.numPendingTests + r.numTodoTests;
  process.stdout.write(
    `\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
  );
}
process.exit(test.status ?? 1);
