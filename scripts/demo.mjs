#!/usr/bin/env node
// The README's main job: install, build, warm-start mage-tiny, train MAGE on Tic-Tac-Toe, and evaluate
// the warm start and the trained policy on the same in-domain tasks (MCTS-100, the pattern players and
// random), with their notes and with no memory, with `mage experiment`, which writes the comparison report
// (the memory benefit first).
// Needs only Node >= 20.19 and npm.
//
//   npm run demo                                  # warm start vs MAGE
//   npm run demo -- --iterations 16               # the laptop preset's 16 iterations (warm start still 2 epochs)
//   npm run demo -- --methods mage,gigpo,grpo     # also the baselines, same budget, same tasks
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
// The demo's budget over the laptop preset (4 warm-start epochs, 16 iterations, in- and out-of-domain
// evaluation): a warm start of 2 epochs (about half its CPU time; same pass@3, but notes that recall fewer
// facts: docs/results/README.md, "The demo"), fewer MAGE iterations and no out-of-domain suite (the demo prints the
// in-domain tables): the whole demo takes about 3.5 minutes on 2 cores. Other presets run as they are.
// The warm start steps by turns (`warmStart.batchTokens=0`), as when this budget was chosen: from a warm
// start that steps by tokens (the preset's), the same 4 iterations ended below it on seed 1 (docs/results/README.md).
const DEMO_ITERATIONS = '4';
const DEMO_WARM_START = ['warmStart.epochs=2', 'warmStart.batchTokens=0'];
const laptop = preset === 'laptop';
const iterations = flag('--iterations', DEMO_ITERATIONS);
const warmStartBudget = laptop ? DEMO_WARM_START.flatMap((v) => ['--set', v]) : [];
const budget = laptop
  ? [...warmStartBudget, '--set', `train.iterations=${iterations}`, '--set', 'eval.outOfDomain=[]']
  : [];

function run(cmd, cmdArgs, title, vars = {}) {
  process.stdout.write(`\n==> ${title}\n`);
  const started = Date.now();
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...vars } });
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
// Only the CLI and what it imports, JavaScript only: the declarations are most of a full build's time and
// nothing here reads them (`pnpm build` still builds everything, declarations included).
run(
  pnpm[0],
  [...pnpm.slice(1), 'exec', 'turbo', 'run', 'build', '--filter=@mage-rl/cli...'],
  'build (the CLI and its packages, no declarations)',
  { MAGE_BUILD_DECLARATIONS: '0' },
);
const mage = ['packages/cli/dist/bin.js'];
run(
  'node',
  // No evaluation of its own: the experiment below evaluates the warm start with and without notes.
  [
    ...mage,
    'pretrain',
    '--env',
    env,
    '--preset',
    preset,
    '--seed',
    seed,
    '--eval-episodes',
    '0',
    ...warmStartBudget,
  ],
  'warm start (mage pretrain)',
);
// Another iteration count is another experiment: its own directory (an experiment keeps its config).
const out = `runs/demo-${env}-${preset}-s${seed}${laptop && iterations !== DEMO_ITERATIONS ? `-i${iterations}` : ''}`;
run(
  'node',
  [
    ...mage,
    'experiment',
    '--env',
    env,
    '--preset',
    preset,
    '--seeds',
    seed,
    '--methods',
    ['warm-start', ...methods].join(','),
    '--eval-memory',
    'reflection,none,method',
    ...budget,
    '--out',
    out,
  ],
  `train and evaluate: warm start, ${methods.join(', ')}`,
);
// The in-domain section's first two tables: the memory benefit and pass@k per policy and memory.
const report = readFileSync(new URL(`../${out}/report.md`, import.meta.url), 'utf8');
const section = report.slice(report.indexOf('## in-domain'));
const tables = section.split('\n\n').filter((block) => block.startsWith('|'));
process.stdout.write(`\n## in-domain\n\n${tables.slice(0, 2).join('\n\n')}\n`);
process.stdout.write(
  `\ndemo finished in ${((Date.now() - started) / 60000).toFixed(1)} min; report: ${out}/report.md (training curves: ${out}/runs/*/report.md)\n`,
);
