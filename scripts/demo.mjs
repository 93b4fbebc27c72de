#!/usr/bin/env node
// The README's main job: install, build, then show what MAGE is for. By default MAGE learns to read its
// notes on a task that needs memory — Higher-Lower 1..5 with one guess per attempt (the example env
// package `examples/custom-env`), where only the notes carry the hints across attempts: warm-start mage-tiny
// (note-blind teachers), train it with MAGE, and evaluate the warm start and the trained policy on the same
// tasks with their notes, with no memory and with foreign notes, every difference paired over the tasks
// (`scripts/demo-reading.mjs`). It ends with a one-line verdict. `--env tictactoe` runs the earlier demo:
// MAGE on Tic-Tac-Toe with `mage experiment` (the memory benefit first), where no policy reads its notes.
// Needs only Node >= 20.19 and npm.
//
//   npm run demo                                  # MAGE learns to read on Higher-Lower (about 5 minutes)
//   npm run demo -- --seed 2                      # another seed (warm start, training and evaluation tasks)
//   npm run demo -- --cache-dir /tmp/cache        # warm starts cached there instead of .mage-cache
//   npm run demo -- --no-build                    # skip install and build (done already)
//   npm run demo -- --env tictactoe               # warm start vs MAGE on Tic-Tac-Toe
//   npm run demo -- --env tictactoe --iterations 16 --methods mage,gigpo,grpo
//   npm run demo -- --env tictactoe --preset smoke  # a fast plumbing check
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateReading } from './demo-reading.mjs';

const root = new URL('..', import.meta.url).pathname;
const pin = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).packageManager;
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const env = flag('--env', 'higher-lower');
const seed = flag('--seed', '1');
// Where warm starts are cached (default .mage-cache); a fresh directory times the demo as on a fresh clone.
const cacheDir = args.includes('--cache-dir') ? ['--cache-dir', flag('--cache-dir', '.mage-cache')] : [];
if (!['higher-lower', 'tictactoe'].includes(env)) {
  process.stderr.write(`demo: --env takes higher-lower (the default) or tictactoe, got '${env}'.\n`);
  process.exit(2);
}

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

/** Runs `mage <args> --json` and returns what it printed. */
function mageJson(cmdArgs) {
  const r = spawnSync('node', [...mage, ...cmdArgs], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) {
    process.stdout.write(`\ndemo: 'mage ${cmdArgs.join(' ')}' failed (exit ${r.status ?? r.signal}).\n`);
    process.exit(r.status || 1);
  }
  return JSON.parse(r.stdout.toString('utf8'));
}

const have = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
const pnpm = have.status === 0 && `pnpm@${have.stdout.trim()}` === pin ? ['pnpm'] : ['npx', '--yes', pin];
const started = Date.now();
// `--no-build`: the checkout is installed and built already.
if (!args.includes('--no-build')) {
  run(pnpm[0], [...pnpm.slice(1), 'install', '--frozen-lockfile'], 'install');
  // Only the CLI and what it imports, JavaScript only: the declarations are most of a full build's time and
  // nothing here reads them (`pnpm build` still builds everything, declarations included).
  run(
    pnpm[0],
    [...pnpm.slice(1), 'exec', 'turbo', 'run', 'build', '--filter=@mage-rl/cli...'],
    'build (the CLI and its packages, no declarations)',
    { MAGE_BUILD_DECLARATIONS: '0' },
  );
}
const mage = ['packages/cli/dist/bin.js'];
const built = Date.now();
const minutes = (since) => `${((Date.now() - since) / 60000).toFixed(1)} min`;
const elapsed = () => `${minutes(started)} (${minutes(built)} after the build)`;
if (env === 'tictactoe') await ticTacToe();
else await higherLower();

/**
 * Higher-Lower 1..5, one guess per attempt (K = 3): without notes every attempt is a fresh guess (48.8% by
 * attempt 3 for uniform guesses); a reader that probes 3 and bisects with its notes finds every number by
 * attempt 3. The warm start's teachers guess uniformly and never read their notes. The budget
 * (docs/results/demo-memory): DEMO_ITERATIONS iterations and DEMO_EPISODES evaluation tasks.
 */
async function higherLower() {
  const DEMO_ITERATIONS = '150';
  const DEMO_EPISODES = 256;
  const iterations = flag('--iterations', DEMO_ITERATIONS);
  // The example env's recipe (`--preset reading`, its default): one guess per attempt, the credit and KL
  // settings of docs/results/adaptation-from-scratch, 8-row mini-batches, the 1x warm-start corpus; here
  // numbers 1..5 instead of 1..6 and DEMO_ITERATIONS instead of 300.
  const task = [
    '--env-package',
    './examples/custom-env',
    '--env',
    'higher-lower',
    '--preset',
    'reading',
    '--set',
    'env.options.max=5',
    ...cacheDir,
  ];
  // No evaluation of its own: the warm start is evaluated below, with MAGE, on the same tasks.
  const pretrain = ['pretrain', ...task, '--seed', seed, '--eval-episodes', '0'];
  run('node', [...mage, ...pretrain], 'warm start (mage pretrain: note-blind teachers)');
  // The same call again finds it in the cache and names its directory.
  const warm = mageJson([...pretrain, '--json']);
  // Another iteration count is another run: its own directory (a run keeps its config).
  const out = `runs/demo-higher-lower5-s${seed}${iterations !== DEMO_ITERATIONS ? `-i${iterations}` : ''}`;
  // The run in mage/, the evaluation's report.md and report.json beside it.
  const runDir = `${out}/mage`;
  const runArgs = [
    'train',
    ...task,
    '--seed',
    seed,
    '--run-dir',
    runDir,
    '--iterations',
    iterations,
    '--set',
    `train.checkpointEvery=${iterations}`,
    // The evaluation below replaces the run's own final one.
    '--set',
    'train.evaluate=false',
    // A finished run is kept: the demo goes on to its evaluation.
    ...(existsSync(join(root, runDir, 'config.json')) ? ['--resume'] : []),
  ];
  run('node', [...mage, ...runArgs], `train MAGE (${iterations} iterations)`);
  process.stdout.write('\n==> evaluate the warm start and MAGE on the same tasks\n');
  const evalStarted = Date.now();
  const r = await evaluateReading({
    env: 'higher-lower',
    envPackage: join(root, 'examples/custom-env'),
    preset: 'reading',
    overrides: { env: { options: { max: 5 } } },
    warmStart: warm.dir,
    run: join(root, runDir),
    episodes: DEMO_EPISODES,
    // Evaluation tasks apart from the training tasks, the same for both policies.
    seed: `${seed}/eval/demo`,
    outDir: join(root, out),
    title: `Higher-Lower 1..5: the warm start and MAGE (seed ${seed}, ${iterations} iterations)`,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(
    `==> evaluate the warm start and MAGE on the same tasks: done in ${((Date.now() - evalStarted) / 1000).toFixed(0)} s\n`,
  );
  process.stdout.write(`\n## Higher-Lower 1..5, seed ${seed}\n\n${r.lines.join('\n')}\n`);
  process.stdout.write(
    `\ndemo finished in ${elapsed()}; report: ${out}/report.md and report.json (training curves: ${runDir}/report.md)\n`,
  );
  process.stdout.write(`\n${r.verdict}\n`);
}

/**
 * Tic-Tac-Toe: warm start vs MAGE with `mage experiment` (in-domain: MCTS-100, the pattern players and
 * random), with their notes and with no memory. Budget over the laptop preset (4 warm-start epochs, 16
 * iterations, in- and out-of-domain evaluation): a warm start of 2 epochs (about half its CPU time; same
 * pass@3, but notes that recall fewer facts: docs/results/README.md, "The demo"), fewer MAGE iterations and
 * no out-of-domain suite. The warm start steps by turns (`warmStart.batchTokens=0`), as when this budget was
 * chosen: from a warm start that steps by tokens (the preset's), the same 4 iterations ended below it on seed
 * 1 (docs/results/README.md). Other presets run as they are.
 */
async function ticTacToe() {
  const methods = flag('--methods', 'mage').split(',');
  const preset = flag('--preset', 'laptop');
  const DEMO_ITERATIONS = '4';
  const DEMO_WARM_START = ['warmStart.epochs=2', 'warmStart.batchTokens=0'];
  const laptop = preset === 'laptop';
  const iterations = flag('--iterations', DEMO_ITERATIONS);
  const warmStartBudget = laptop ? DEMO_WARM_START.flatMap((v) => ['--set', v]) : [];
  const budget = laptop
    ? [...warmStartBudget, '--set', `train.iterations=${iterations}`, '--set', 'eval.outOfDomain=[]']
    : [];
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
    `\ndemo finished in ${elapsed()}; report: ${out}/report.md (training curves: ${out}/runs/*/report.md)\n`,
  );
}
