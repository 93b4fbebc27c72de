#!/usr/bin/env node
// The README's main job: install, build, warm-start mage-tiny, train MAGE on Tic-Tac-Toe, evaluate it
// against MCTS-100, the pattern players and random (in-domain) and MCTS-1000 (out-of-domain), and write the
// report. Needs only Node >= 20.19 and npm.
//
//   npm run demo                                  # MAGE only
//   npm run demo -- --methods mage,gigpo,grpo     # also the baselines, same budget, one comparison report
//   npm run demo -- --preset smoke                # a fast plumbing check
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const pin = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).packageManager;
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const methods = flag('--methods', 'mage').split(',');
const preset = flag('--preset', 'laptop');
const seed = flag('--seed', '1');
const env = 'tictactoe';

function run(cmd, cmdArgs, title) {
  process.stdout.write(`\n==> ${title}\n`);
  const started = Date.now();
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stdout.write(`\ndemo: '${title}' failed (exit ${r.status ?? r.signal}).\n`);
    process.exit(r.status || 1);
  }
  process.stdout.write(`==> ${title}: done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

const have = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
const pnpm = have.status === 0 && `pnpm@${have.stdout.trim()}` === pin ? ['pnpm'] : ['npx', '--yes', pin];
const started = Date.now();
run(pnpm[0], [...pnpm.slice(1), 'install', '--frozen-lockfile'], 'install');
run(pnpm[0], [...pnpm.slice(1), 'run', 'build'], 'build');
const mage = ['packages/cli/dist/bin.js'];
run(
  'node',
  [...mage, 'pretrain', '--env', env, '--preset', preset, '--seed', seed],
  'warm start (mage pretrain)',
);
const runDirs = [];
for (const method of methods) {
  const runDir = `runs/demo-${env}-${method}-${preset}-s${seed}`;
  runDirs.push(runDir);
  run(
    'node',
    [
      ...mage,
      'train',
      '--env',
      env,
      '--method',
      method,
      '--preset',
      preset,
      '--seed',
      seed,
      '--run-dir',
      runDir,
    ],
    `train ${method}`,
  );
}
const out = runDirs.length > 1 ? `runs/demo-${env}-${preset}-s${seed}-comparison` : runDirs[0];
run('node', [...mage, 'report', ...runDirs, '--out', out], 'report');
process.stdout.write(
  `\ndemo finished in ${((Date.now() - started) / 60000).toFixed(1)} min; report: ${out}/report.md\n`,
);
