#!/usr/bin/env node
// Until the packages are on the npm registry, this is how another project uses them from a clone: build,
// pack every package into a folder of tarballs (`pnpm pack` rewrites `workspace:` versions and applies
// `publishConfig`), and print the `npm install` line for the packages asked for and the `@mage-rl/*`
// packages they import (npm must get those as tarballs too: the registry has none of them yet).
// `scripts/pack-check.mjs` packs with the same code and installs with the same lines.
// Usage: npm run pack-all -- [--out <dir>] [--no-build] [package …]   (names without the scope: trainer, envs)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { closureOf, pullsMlRuntime, readPackages } from './dependency-graph.mjs';

export const root = fileURLToPath(new URL('..', import.meta.url));
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
export const SCOPE = '@mage-rl/';

/** The pinned pnpm: the installed one when it is that version, else through npx. */
export function pnpmCommand() {
  const have = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  return have.status === 0 && `pnpm@${have.stdout.trim()}` === rootManifest.packageManager
    ? ['pnpm']
    : ['npx', '--yes', rootManifest.packageManager];
}

/** Every package that is published: `{ dir, folder, manifest }` of each non-private `packages/*`. */
export function publishedPackages() {
  return readdirSync(join(root, 'packages'))
    .filter((d) => existsSync(join(root, 'packages', d, 'package.json')))
    .map((d) => {
      const dir = join(root, 'packages', d);
      return { dir, folder: d, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) };
    })
    .filter((p) => !p.manifest.private);
}

/** The file `pnpm pack` writes for a manifest: `mage-rl-core-0.1.0.tgz`. */
export const tarballName = (manifest) =>
  `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`;

/**
 * The packages to install for `names` (with or without the scope): the named ones and every `@mage-rl/*`
 * package they import, sorted. Throws on a name that is not a published package.
 */
export function installSet(names) {
  const published = publishedPackages().map((p) => p.manifest.name.slice(SCOPE.length));
  const graph = readPackages(root);
  const shorts = names.map((n) => (n.startsWith(SCOPE) ? n.slice(SCOPE.length) : n));
  const unknown = shorts.filter((s) => !published.includes(s));
  if (unknown.length > 0) {
    throw new Error(
      `not a package of this repository: ${unknown.join(', ')} (packages: ${published.join(', ')})`,
    );
  }
  const all = new Set(shorts.flatMap((s) => [s, ...closureOf(graph, s)]));
  return {
    names: [...all].sort().map((s) => `${SCOPE}${s}`),
    mlRuntime: [...all].some((s) => pullsMlRuntime(graph, s)),
  };
}

/** The `npm install` words for `names` from tarballs in `dir` (absolute paths). */
export function installArgs(names, dir) {
  const byName = new Map(publishedPackages().map((p) => [p.manifest.name, p.manifest]));
  const set = installSet(names);
  return { ...set, tarballs: set.names.map((n) => join(resolve(dir), tarballName(byName.get(n)))) };
}

/** The line a user pastes into their project. */
export function installLine(names, dir) {
  const { tarballs, mlRuntime } = installArgs(names, dir);
  // onnxruntime-node's postinstall would download GPU binaries; its CPU binaries ship in the package.
  return `${mlRuntime ? 'ONNXRUNTIME_NODE_INSTALL=skip ' : ''}npm install ${tarballs.join(' ')}`;
}

/**
 * `pnpm pack` of every package into `dest`; resolves with `{ name, tarball, pkg, out, status }` per package
 * (`tarball` undefined when packing failed). `run(cmd, args, { cwd })` runs a command and resolves with
 * `{ status, out }`.
 */
export async function packPackages(pkgs, dest, run) {
  const pnpm = pnpmCommand();
  const results = [];
  for (const pkg of pkgs) {
    const r = await run(pnpm[0], [...pnpm.slice(1), 'pack', '--pack-destination', dest], { cwd: pkg.dir });
    const file = join(dest, tarballName(pkg.manifest));
    results.push({
      name: pkg.manifest.name,
      pkg,
      status: r.status,
      out: r.out,
      tarball: r.status === 0 && existsSync(file) ? file : undefined,
    });
  }
  return results;
}

function runSync(cmd, args, { cwd = root } = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

async function main() {
  const { values: flags, positionals } = parseArgs({
    options: {
      out: { type: 'string', default: join(root, '.tarballs') },
      build: { type: 'boolean', default: true },
    },
    allowPositionals: true,
    allowNegative: true,
  });
  const names = positionals.length > 0 ? positionals : publishedPackages().map((p) => p.manifest.name);
  installSet(names); // an unknown name stops here, before the build
  const out = resolve(flags.out);
  const pnpm = pnpmCommand();
  if (flags.build) {
    process.stdout.write('pack-all: building every package (pnpm run build; cached when unchanged)\n');
    const built = spawnSync(pnpm[0], [...pnpm.slice(1), 'run', 'build'], { cwd: root, stdio: 'inherit' });
    if (built.status !== 0) {
      process.stdout.write(
        `pack-all: the build failed; install first with '${pnpm.join(' ')} install --frozen-lockfile'.\n`,
      );
      process.exit(1);
    }
  }
  const pkgs = publishedPackages();
  const unbuilt = pkgs.filter((p) => !existsSync(join(p.dir, 'dist'))).map((p) => p.manifest.name);
  if (unbuilt.length > 0) {
    process.stdout.write(`pack-all: ${unbuilt.join(', ')} not built (no dist/); run without --no-build.\n`);
    process.exit(1);
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const packed = await packPackages(pkgs, out, async (cmd, args, options) => runSync(cmd, args, options));
  const failed = packed.filter((p) => !p.tarball);
  for (const f of failed) process.stdout.write(`pack-all: pnpm pack failed for ${f.name}:\n${f.out}\n`);
  if (failed.length > 0) process.exit(1);
  process.stdout.write(
    `pack-all: ${packed.length} tarballs in ${out}\n\n` +
      `In your project (Node >= 20.19, npm 10 or 11), install ${names.length === pkgs.length ? 'everything' : names.join(', ')} and the @mage-rl packages it imports:\n\n` +
      `  ${installLine(names, out)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
