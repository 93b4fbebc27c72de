#!/usr/bin/env node
// The published shape, checked as a user meets it: packs every package (`pnpm pack` rewrites `workspace:`
// versions and applies `publishConfig`), checks what each tarball holds (dist, README, LICENSE; no sources,
// tests or fixtures; no `@mage-rl/source` condition), runs publint and @arethetypeswrong/cli (ESM-only
// profile) on it, then installs all tarballs in an empty project with npm 10, with npm 11 and with pnpm,
// type-checks a consumer with `tsc` (moduleResolution nodenext and bundler), imports every entry point,
// samples from a tiny learner (onnxruntime-node's bundled CPU binaries) and runs the `mage` CLI from each
// install. Every npm project has `engine-strict=true` and fails on any `EBADENGINE`. The light packages
// (recipes and what it imports) are installed on their own and a consumer is type-checked with the tsconfig
// the README documents, with no error anywhere. `examples/quickstart` is copied out of the repository,
// installed with the line `pnpm pack-all trainer` prints, type-checked and run: it trains and evaluates
// mage-tiny through `@mage-rl/trainer` alone (no CLI) and prints its report path.
// Last, `examples/custom-env` is copied out of the repository and installed (its `@mage-rl/*`
// ranges served by the tarballs), built, tested and smoked on its own, and the installed `mage` evaluates
// it through `--env-package`.
//
// Needs a build first (`pnpm build`). Uses the npm registry for third-party dependencies (cached in
// ~/.npm; `--prefer-offline` skips revalidation) and `ONNXRUNTIME_NODE_INSTALL=skip`.
// Usage: pnpm pack-check [--npm 10,11] [--no-pnpm] [--no-example] [--keep]
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { installArgs, packPackages, pnpmCommand, publishedPackages } from './pack-all.mjs';

const root = new URL('..', import.meta.url).pathname;
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { values: flags } = parseArgs({
  options: {
    npm: { type: 'string', default: '10,11' },
    example: { type: 'boolean', default: true },
    pnpm: { type: 'boolean', default: true },
    keep: { type: 'boolean', default: false },
  },
  allowNegative: true,
});
const npmMajors = flags.npm.split(',').filter(Boolean);
const REPOSITORY = 'https://github.com/mage-rl/mage-rl';
const SOURCE_CONDITION = '@mage-rl/source';
/** One export per entry point: imported at run time, and type-checked as not `any`. */
const ENTRIES = [
  ['@mage-rl/core', 'createRng'],
  ['@mage-rl/spec', 'createPopulation'],
  ['@mage-rl/core/testing', 'createNimEnv'],
  ['@mage-rl/envs', 'createKuhnPoker'],
  ['@mage-rl/envs/tictactoe', 'createTicTacToe'],
  ['@mage-rl/envs/kuhn-poker', 'createKuhnPoker'],
  ['@mage-rl/envs/sokoban', 'createSokoban'],
  ['@mage-rl/opponents', 'KUHN_ARCHETYPES'],
  ['@mage-rl/reflection', 'createMemory'],
  ['@mage-rl/env-remote', 'createServedEnv'],
  ['@mage-rl/gigpo', 'computeAdvantages'],
  ['@mage-rl/learner', 'CHECKPOINT_FORMAT'],
  ['@mage-rl/recipes', 'FIRST_PARTY_ENV_DEFINITIONS'],
  ['@mage-rl/report', 'chartSpec'],
  ['@mage-rl/dashboard', 'startDashboard'],
  ['@mage-rl/serve', 'createRemotePolicy'],
  ['@mage-rl/trainer', 'createTrainer'],
  ['@mage-rl/trainer/internals', 'trainPipeline'],
  ['@mage-rl/cli', 'runCli'],
];

const failures = [];
const started = Date.now();
const seconds = (t) => `${((Date.now() - t) / 1000).toFixed(1)} s`;
const log = (line) => process.stdout.write(`pack-check: ${line}\n`);

function fail(what, detail) {
  failures.push(what);
  process.stdout.write(`pack-check: FAIL ${what}\n${detail ? `${detail.trimEnd()}\n` : ''}`);
}

/** Runs a command; resolves with its status, combined output and stdout (never rejects). */
/**
 * The environment of every command: the caller's, minus the `npm_*` settings that `pnpm run` exports from
 * this workspace (`strictDepBuilds`, …), which a user's empty project would not have.
 */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^p?npm_/i.test(key)));

function run(cmd, args, { cwd = root, env = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...cleanEnv, ONNXRUNTIME_NODE_INSTALL: 'skip', NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    });
    let out = '';
    let stdout = '';
    child.stdout.on('data', (d) => {
      out += d;
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', (error) => resolve({ status: -1, out: `${out}${error.message}` }));
    child.on('close', (status) => resolve({ status, out, stdout }));
  });
}

async function must(what, cmd, args, options) {
  const t = Date.now();
  const r = await run(cmd, args, options);
  if (r.status === 0) log(`${what}: ok (${seconds(t)})`);
  else {
    // Tarballs by file name: the temporary directory says nothing.
    const shown = args.map((a) => (a.endsWith('.tgz') ? basename(a) : a)).join(' ');
    fail(`${what} (exit ${r.status}): ${cmd} ${shown}`, tail(r.out, 40));
  }
  return r;
}

const tail = (text, n = 30) => text.trimEnd().split('\n').slice(-n).join('\n');

/** `exports` without the source condition, which is what `publishConfig.exports` must say. */
function withoutSourceCondition(value) {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== SOURCE_CONDITION)
      .map(([key, v]) => [key, withoutSourceCondition(v)]),
  );
}

/** The manifest and files of a package in the repository, before packing. */
function checkSources(pkg) {
  const { manifest: m, dir, folder } = pkg;
  const problems = [];
  const expected = JSON.stringify(withoutSourceCondition(m.exports));
  if (JSON.stringify(m.publishConfig?.exports) !== expected) {
    problems.push(`publishConfig.exports must equal exports without '${SOURCE_CONDITION}': ${expected}`);
  }
  if (JSON.stringify(m.files) !== '["dist"]')
    problems.push(`files must be ["dist"] (got ${JSON.stringify(m.files)})`);
  for (const key of ['description', 'license', 'keywords', 'homepage', 'repository', 'bugs']) {
    if (m[key] === undefined) problems.push(`package.json has no '${key}'`);
  }
  if (m.repository?.url !== `git+${REPOSITORY}.git` || m.repository?.directory !== `packages/${folder}`) {
    problems.push(`repository must be { url: 'git+${REPOSITORY}.git', directory: 'packages/${folder}' }`);
  }
  const license = join(dir, 'LICENSE');
  if (!existsSync(license) || readFileSync(license, 'utf8') !== readFileSync(join(root, 'LICENSE'), 'utf8')) {
    problems.push('LICENSE is missing or differs from the root LICENSE (copy it)');
  }
  const readme = existsSync(join(dir, 'README.md')) ? readFileSync(join(dir, 'README.md'), 'utf8') : '';
  if (!readme) problems.push('README.md is missing');
  const relative = [...readme.matchAll(/\]\((?!https?:|#|mailto:)([^)]+)\)/g)].map((x) => x[1]);
  if (relative.length > 0) {
    problems.push(
      `README links that break on the registry page (use ${REPOSITORY}/blob/main/…): ${relative.join(', ')}`,
    );
  }
  return problems;
}

/** What a tarball holds: published files only, a manifest without workspace versions or the source condition. */
async function checkTarball(tarball) {
  const problems = [];
  const list = await run('tar', ['-tzf', tarball]);
  const files = list.out.split('\n').filter(Boolean);
  for (const required of ['package/package.json', 'package/README.md', 'package/LICENSE']) {
    if (!files.includes(required)) problems.push(`missing ${required}`);
  }
  if (!files.some((f) => f.startsWith('package/dist/'))) problems.push('no dist/ files');
  const stray = files.filter(
    (f) =>
      !/^package\/(dist\/|package\.json$|README\.md$|LICENSE$)/.test(f) ||
      /\.test[.-]|__fixtures__|test-fixtures/i.test(f),
  );
  if (stray.length > 0) problems.push(`files that must not be published: ${stray.slice(0, 10).join(', ')}`);
  const manifest = (await run('tar', ['-xzOf', tarball, 'package/package.json'])).out;
  if (manifest.includes('workspace:')) problems.push('package.json still has workspace: versions');
  if (manifest.includes(SOURCE_CONDITION))
    problems.push(`package.json still has the '${SOURCE_CONDITION}' condition`);
  return { problems, files: files.length };
}

async function packAll(pkgs, dest) {
  const t = Date.now();
  for (const pkg of pkgs) {
    const problems = checkSources(pkg);
    if (problems.length > 0) {
      fail(`${pkg.manifest.name}: package.json / files`, problems.map((p) => `  - ${p}`).join('\n'));
    }
  }
  const tarballs = [];
  for (const { name, tarball, out } of await packPackages(pkgs, dest, run)) {
    if (!tarball) {
      fail(`${name}: pnpm pack`, tail(out));
      continue;
    }
    const { problems: inTarball, files } = await checkTarball(tarball);
    if (inTarball.length > 0) fail(`${name}: tarball`, inTarball.map((p) => `  - ${p}`).join('\n'));
    tarballs.push({ name, tarball, files });
  }
  log(
    `packed ${tarballs.length} packages (${tarballs.map((t) => `${t.name} ${t.files} files`).join(', ')}) (${seconds(t)})`,
  );
  return tarballs;
}

async function lintTarballs(tarballs) {
  const t = Date.now();
  const bin = join(root, 'node_modules', '.bin');
  for (const { name, tarball } of tarballs) {
    const publint = await run(join(bin, 'publint'), ['run', tarball, '--strict']);
    if (publint.status !== 0 || /warning|error/i.test(publint.out.replace(/All good!?/i, ''))) {
      fail(`${name}: publint`, tail(publint.out));
    }
    const attw = await run(join(bin, 'attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii']);
    if (attw.status !== 0) fail(`${name}: @arethetypeswrong/cli --profile esm-only`, tail(attw.out, 60));
  }
  log(`publint and attw (esm-only) on ${tarballs.length} tarballs (${seconds(t)})`);
}

/** Files of the consumer project: a tsconfig per module resolution, a typed consumer and a runtime import. */
function writeConsumer(dir) {
  const imports = ENTRIES.map(([spec, name], i) => `import { ${name} as e${i} } from '${spec}';`);
  const checks = ENTRIES.map(
    ([spec], i) =>
      `// @ts-expect-error '${spec}' must export a real type, not any\nexport const t${i}: symbol = e${i};`,
  );
  writeFileSync(
    join(dir, 'consumer.ts'),
    [
      ...imports,
      "import type { EnvV1 } from '@mage-rl/core';",
      "import type { EnvV1 as SpecEnvV1 } from '@mage-rl/spec';",
      '',
      'export const roll: number = e0(1).int(6);',
      'export const game: EnvV1<unknown, unknown> | undefined = undefined;',
      // Core re-exports the spec: one type, whichever package it is imported from.
      'export const sameEnv: SpecEnvV1<unknown, unknown> | undefined = game;',
      ...checks,
      '',
    ].join('\n'),
  );
  const runtime = ENTRIES.map(
    ([spec, name]) =>
      `if ((await import('${spec}')).${name} === undefined) throw new Error("'${spec}' has no export '${name}'");`,
  );
  writeFileSync(
    join(dir, 'imports.mjs'),
    `${runtime.join('\n')}\nconsole.log('imported ${ENTRIES.length} entry points');\n`,
  );
  // The learner from the install: onnxruntime-node's bundled CPU binaries load and its worker thread samples.
  writeFileSync(
    join(dir, 'learner.mjs'),
    [
      "import { createByteTokenizer, createOnnxLearner, defineModelConfig } from '@mage-rl/learner';",
      'const config = defineModelConfig({ vocabSize: 257, hiddenSize: 32, numLayers: 1, numHeads: 2, intermediateSize: 64 });',
      'const learner = await createOnnxLearner({ config, tokenizer: createByteTokenizer(), seed: 1, optimizer: { lr: 1e-3 } });',
      'try {',
      "  const request = { messages: [{ role: 'user', content: 'hi' }], phase: 'play', seed: 7, maxTokens: 4 };",
      '  const [reply] = await learner.policy.generate([request]);',
      "  if (!reply || reply.tokens.length === 0) throw new Error('the learner generated no tokens');",
      '} finally {',
      '  await learner.dispose();',
      '}',
      '',
    ].join('\n'),
  );
  for (const resolution of ['nodenext', 'bundler']) {
    const compilerOptions = {
      module: resolution === 'nodenext' ? 'nodenext' : 'esnext',
      moduleResolution: resolution,
      target: 'es2022',
      lib: ['es2023'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      exactOptionalPropertyTypes: true,
    };
    writeFileSync(
      join(dir, `tsconfig.${resolution}.json`),
      JSON.stringify({ compilerOptions, files: ['consumer.ts'] }),
    );
  }
}

/**
 * `tsc` on the consumer with `skipLibCheck: false`, so the published declarations are checked too. Errors
 * inside third-party declarations are reported but do not fail the check: onnxruntime-common's name DOM
 * types (`ImageData`, `WebGLTexture`) that a Node project without `"dom"` in `lib` lacks.
 */
async function typeCheck(what, tsc, resolution, dir) {
  const t = Date.now();
  const r = await run(tsc, ['-p', `tsconfig.${resolution}.json`], { cwd: dir });
  const errors = r.out.split('\n').filter((line) => /error TS\d+/.test(line));
  const ours = errors.filter(
    (line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/@mage-rl/'),
  );
  if (ours.length > 0 || (r.status !== 0 && errors.length === 0)) {
    fail(`${what}`, tail(ours.length > 0 ? ours.join('\n') : r.out));
    return;
  }
  const thirdParty =
    errors.length > 0 ? `; ${errors.length} error(s) in third-party declarations ignored` : '';
  log(`${what}: ok (${seconds(t)}${thirdParty})`);
}

// `warn`, not `error`: an `EBADENGINE` warning must be seen (and fails the check, as with engine-strict).
const npmArgs = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=warn'];

/** An npm project as a strict user has it: `engine-strict=true`, so a dependency's engines must agree. */
function strictNpmProject(dir) {
  writeFileSync(join(dir, '.npmrc'), 'engine-strict=true\n');
}

/** Fails `what` when npm's output mentions an engine mismatch (engine-strict already fails the install). */
function checkEngines(what, result) {
  const lines = result.out.split('\n').filter((line) => /EBADENGINE|notsup/i.test(line));
  if (lines.length > 0) fail(`${what}: engines disagree with Node >= 20.19 (EBADENGINE)`, lines.join('\n'));
}

/** `npm@<major> install <args>` in `dir` with engine-strict, checked for `EBADENGINE`. */
async function npmInstall(what, major, dir, args) {
  strictNpmProject(dir);
  const npm = ['npx', '--yes', `npm@${major}`];
  const r = await must(what, npm[0], [...npm.slice(1), ...npmArgs, ...args], { cwd: dir });
  checkEngines(what, r);
  return r;
}

/** Installs all tarballs with `npm@<major>` (or the pinned pnpm) into an empty consumer project. */
async function installConsumer(manager, tarballs, work, { typecheck }) {
  const dir = join(work, manager);
  mkdirSync(dir);
  const manifest = { name: 'consumer', private: true, type: 'module' };
  // The compiler only where the consumer is type-checked.
  const dev = typecheck
    ? ['typescript', '@types/node'].map((d) => `${d}@${rootManifest.devDependencies[d]}`)
    : [];
  const base = manager === 'pnpm' ? pnpmCommand() : ['npx', '--yes', `npm@${manager.slice(3)}`];
  const tarballFiles = tarballs.map((t) => t.tarball);
  let args;
  if (manager === 'pnpm') {
    // pnpm resolves the packages' own `@mage-rl/*` dependencies from the registry unless overridden.
    manifest.pnpm = { overrides: Object.fromEntries(tarballs.map((t) => [t.name, `file:${t.tarball}`])) };
    args = ['add', ...tarballFiles, ...dev];
  } else {
    args = [...npmArgs, ...tarballFiles, ...dev];
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  writeConsumer(dir);
  if (manager !== 'pnpm') strictNpmProject(dir);
  const version = (await run(base[0], [...base.slice(1), '--version'], { cwd: dir })).out
    .trim()
    .split('\n')
    .at(-1);
  const label = `${manager.replace(/\d+$/, '')} ${version}`;
  const install = await must(
    `${label}: install ${tarballs.length} tarballs`,
    base[0],
    [...base.slice(1), ...args],
    {
      cwd: dir,
    },
  );
  if (manager !== 'pnpm') checkEngines(`${label}: install`, install);
  return install.status === 0 ? { dir, label } : undefined;
}

/** Type-checks (when asked), imports, samples from the learner and runs `mage` in an installed consumer. */
async function checkConsumer(manager, tarballs, work, { typecheck }) {
  const installed = await installConsumer(manager, tarballs, work, { typecheck });
  if (!installed) return undefined;
  const { dir, label } = installed;
  const tsc = join(dir, 'node_modules', '.bin', 'tsc');
  for (const resolution of typecheck ? ['nodenext', 'bundler'] : []) {
    await typeCheck(`${label}: tsc (moduleResolution ${resolution})`, tsc, resolution, dir);
  }
  await must(`${label}: import every entry point`, 'node', ['imports.mjs'], { cwd: dir });
  await must(`${label}: the learner samples on onnxruntime-node`, 'node', ['learner.mjs'], { cwd: dir });
  const mage = join(dir, 'node_modules', '.bin', 'mage');
  const help = await must(`${label}: mage --help`, mage, ['--help'], { cwd: dir });
  if (help.status === 0 && !/best-response/.test(help.out))
    fail(`${label}: mage --help lists no commands`, help.out);
  const args = ['best-response', 'kuhn', '--opponent', 'aggressive'];
  const br = await must(`${label}: mage ${args.join(' ')}`, mage, args, { cwd: dir });
  if (br.status === 0 && !br.out.includes('0.333333 chips per hand')) {
    fail(
      `${label}: mage best-response printed an unexpected value (expected 0.333333 chips per hand)`,
      br.out,
    );
  }
  return mage;
}

/**
 * The tsconfig the root README documents for a project that uses the packages from TypeScript: a module
 * resolution that reads `exports` (`nodenext`; `bundler` also works, `node10` does not), and Node's types.
 */
export const DOCUMENTED_TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2023'],
    types: ['node'],
    strict: true,
    noEmit: true,
  },
};

/** The light packages: recipes and what it imports, with their entry points. */
const LIGHT_ENTRIES = ENTRIES.filter(([spec]) =>
  ['core', 'envs', 'env-remote', 'opponents', 'reflection', 'gigpo', 'recipes'].includes(
    spec.split('/')[1] ?? '',
  ),
);

/**
 * The light packages on their own, with npm and engine-strict: installed with the line `pnpm pack-all
 * recipes` prints (no model runtime comes along), and a consumer type-checked with the documented tsconfig
 * and `skipLibCheck: false`, without a single error (theirs or a dependency's).
 */
async function checkLightConsumer(major, tarballs, work) {
  const dir = join(work, 'light');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'light', private: true, type: 'module' }));
  const { tarballs: line } = installArgs(['recipes'], tarballDir(tarballs));
  const dev = ['typescript', '@types/node'].map((d) => `${d}@${rootManifest.devDependencies[d]}`);
  const what = `light packages (npm ${major}, engine-strict): install ${line.length} tarballs`;
  const install = await npmInstall(what, major, dir, [...line, ...dev]);
  if (install.status !== 0) return;
  if (existsSync(join(dir, 'node_modules', 'onnxruntime-node')))
    fail('the light packages install onnxruntime-node', readdirSync(join(dir, 'node_modules')).join(', '));
  const imports = LIGHT_ENTRIES.map(([spec, name], i) => `import { ${name} as e${i} } from '${spec}';`);
  writeFileSync(
    join(dir, 'consumer.ts'),
    [
      ...imports,
      `export const all = [${LIGHT_ENTRIES.map((_, i) => `e${i}`).join(', ')}];`,
      `if (all.some((e) => e === undefined)) throw new Error('an entry point lacks its export');`,
      '',
    ].join('\n'),
  );
  const tsconfig = {
    compilerOptions: {
      ...DOCUMENTED_TSCONFIG.compilerOptions,
      skipLibCheck: false,
      noEmit: false,
      outDir: 'out',
    },
    files: ['consumer.ts'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const tsc = join(dir, 'node_modules', '.bin', 'tsc');
  const checked = await must(
    `light packages: tsc with the documented tsconfig (no errors at all)`,
    tsc,
    ['-p', '.'],
    {
      cwd: dir,
    },
  );
  if (checked.status === 0)
    await must('light packages: run the compiled consumer', 'node', ['out/consumer.js'], { cwd: dir });
}

/** The folder the tarballs were packed into. */
const tarballDir = (tarballs) => join(tarballs[0]?.tarball ?? '.', '..');

/**
 * `examples/quickstart` copied out of the repository and installed the documented way: `npm install` with
 * the tarballs `pnpm pack-all trainer` names (no CLI). It type-checks and runs its smoke preset: warm start,
 * training and evaluation through `@mage-rl/trainer`, printing the report path, which must exist.
 */
async function checkQuickstart(major, tarballs, work) {
  const dir = join(work, 'quickstart');
  const source = join(root, 'examples', 'quickstart');
  for (const entry of readdirSync(source)) {
    if (!['node_modules', 'runs', '.mage-cache', '.turbo'].includes(entry))
      cpSync(join(source, entry), join(dir, entry), { recursive: true });
  }
  const { tarballs: line } = installArgs(['trainer'], tarballDir(tarballs));
  const install = await npmInstall(
    `examples/quickstart (npm ${major}, engine-strict): npm install ${line.length} tarballs (pnpm pack-all trainer)`,
    major,
    dir,
    line,
  );
  if (install.status !== 0) return;
  if (existsSync(join(dir, 'node_modules', '@mage-rl', 'cli')))
    fail(
      'examples/quickstart installs @mage-rl/cli',
      readdirSync(join(dir, 'node_modules', '@mage-rl')).join(', '),
    );
  const npm = ['npx', '--yes', `npm@${major}`];
  await must(
    `examples/quickstart (npm ${major}): npm run typecheck`,
    npm[0],
    [...npm.slice(1), 'run', 'typecheck'],
    {
      cwd: dir,
    },
  );
  const smoke = await must(
    `examples/quickstart (npm ${major}): npm run smoke (train, report, evaluate)`,
    npm[0],
    [...npm.slice(1), 'run', 'smoke'],
    { cwd: dir },
  );
  if (smoke.status !== 0) return;
  const report = /report: (\S+)/.exec(smoke.out)?.[1];
  if (!report || !existsSync(resolve(dir, report)))
    fail('examples/quickstart printed no report path that exists', tail(smoke.out));
}

/** `examples/custom-env` outside the repository: its `@mage-rl/*` ranges come from the tarballs. */
async function checkExample(major, tarballs, work) {
  const dir = join(work, 'custom-env');
  const source = join(root, 'examples', 'custom-env');
  for (const entry of readdirSync(source)) {
    if (!['node_modules', 'dist'].includes(entry))
      cpSync(join(source, entry), join(dir, entry), { recursive: true });
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const byName = Object.fromEntries(tarballs.map((t) => [t.name, `file:${t.tarball}`]));
  const problems = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })
    .filter(([, range]) => range.startsWith('workspace:'))
    .map(([name, range]) => `${name}: ${range}`);
  if (problems.length > 0) fail('examples/custom-env depends on workspace versions', problems.join('\n'));
  // npm accepts an override of a direct dependency only when both say the same thing.
  manifest.overrides = byName;
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (byName[name]) manifest.dependencies[name] = byName[name];
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const npm = ['npx', '--yes', `npm@${major}`];
  const install = await npmInstall(
    `examples/custom-env (npm ${major}, engine-strict): install`,
    major,
    dir,
    [],
  );
  if (install.status !== 0) return;
  const installed = readdirSync(join(dir, 'node_modules', '@mage-rl'));
  if (
    installed.some((n) => ['cli', 'learner'].includes(n)) ||
    existsSync(join(dir, 'node_modules', 'onnxruntime-node'))
  ) {
    fail('examples/custom-env installs the CLI or the learner (onnxruntime-node)', installed.join(', '));
  }
  for (const script of ['build', 'test', 'smoke']) {
    await must(
      `examples/custom-env (npm ${major}): npm run ${script}`,
      npm[0],
      [...npm.slice(1), 'run', script],
      { cwd: dir },
    );
  }
  return dir;
}

/** The installed `mage` evaluates a third-party env package: the example, with its own copy of core. */
async function checkEnvPackage(mage, example) {
  const what = 'mage (from the tarballs) eval --env-package examples/custom-env';
  const args = ['eval', '--env-package', '.', '--method', 'reflexion', '--episodes', '4', '--json'];
  const r = await must(what, mage, args, { cwd: example });
  if (r.status !== 0) return;
  let result;
  try {
    result = JSON.parse(r.stdout);
  } catch {
    result = undefined;
  }
  if (result?.env !== 'higher-lower' || result.metrics?.overall?.invalidActionRate?.rate !== 0) {
    fail(`${what}: expected env higher-lower with no invalid actions`, tail(r.out));
  }
}

const pkgs = publishedPackages();
const unbuilt = pkgs.filter((p) => !existsSync(join(p.dir, 'dist'))).map((p) => p.manifest.name);
if (unbuilt.length > 0) {
  process.stdout.write(`pack-check: ${unbuilt.join(', ')} not built (no dist/); run 'pnpm build' first.\n`);
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), 'mage-pack-check-'));
log(`working in ${work}`);
try {
  const tarballDir = join(work, 'tarballs');
  mkdirSync(tarballDir);
  const tarballs = await packAll(pkgs, tarballDir);
  if (tarballs.length === pkgs.length) {
    // Three independent streams: the linters are CPU-bound, the installs mostly wait on disk and network.
    const [, mage, example] = await Promise.all([
      lintTarballs(tarballs),
      (async () => {
        // Both npm installs lay out the same files: type-checking the first one is enough.
        let mage;
        for (const [i, major] of npmMajors.entries()) {
          mage = (await checkConsumer(`npm${major}`, tarballs, work, { typecheck: i === 0 })) ?? mage;
        }
        if (flags.pnpm) mage = (await checkConsumer('pnpm', tarballs, work, { typecheck: false })) ?? mage;
        return mage;
      })(),
      flags.example ? checkExample(npmMajors[0], tarballs, work) : undefined,
      (async () => {
        await checkLightConsumer(npmMajors[0], tarballs, work);
        if (flags.example) await checkQuickstart(npmMajors[0], tarballs, work);
      })(),
    ]);
    if (mage && example) await checkEnvPackage(mage, example);
  }
} finally {
  if (flags.keep) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  process.stdout.write(
    `\npack-check: ${failures.length} check(s) failed (${seconds(started)}):\n${failures.map((f) => `  - ${f}`).join('\n')}\n` +
      'The published packages would not install or work as a user meets them; see the output above.\n' +
      'Rerun with `pnpm pack-check --keep` to inspect the temporary projects.\n',
  );
  process.exit(1);
}
log(`all checks pass (${seconds(started)})`);
