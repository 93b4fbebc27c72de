/**
 * `--env-package <npm name or path>`: imports a package (resolved from the working directory) or a file
 * whose `envDefinition` export (or default export) is an `EnvDefinitionV1`, checks it, and adds it to the
 * env registry of `@mage-rl/recipes` for this run. A TypeScript entry (a workspace package run from
 * source) is loaded through `tsx` when it is installed.
 */

import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, type EnvDefinitionV1, MageError, readJsonFile, valueAt } from '@mage-rl/core';
import { mergeConfig, resolveTrainConfig } from '../presets/resolve-config';
import type { TrainConfigInput } from '../presets/schema';
import { addEnvDefinition } from './registry';

/** Export conditions, in the order Node's `import` tries them. */
const CONDITIONS = ['node', 'import', 'default'];

const isPathLike = (spec: string): boolean =>
  spec.startsWith('.') || isAbsolute(spec) || spec.startsWith('file:');

const fail = (spec: string, message: string, cause?: unknown): ConfigError =>
  new ConfigError(`\`env.package\` '${spec}': ${message}`, {
    path: 'env.package',
    context: { package: spec },
    ...(cause === undefined ? {} : { cause }),
  });

/** The target of an `exports` entry under Node's conditions (nested conditions and arrays included). */
function exportTarget(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (Array.isArray(entry)) {
    for (const e of entry) {
      const t = exportTarget(e);
      if (t) return t;
    }
    return undefined;
  }
  if (typeof entry === 'object' && entry !== null) {
    for (const [key, value] of Object.entries(entry)) {
      if (CONDITIONS.includes(key)) {
        const t = exportTarget(value);
        if (t) return t;
      }
    }
  }
  return undefined;
}

/** The entry file of the package in `dir` for `subpath` (`.` or `./sub`). */
function packageEntry(spec: string, dir: string, subpath: string): string {
  const manifestPath = join(dir, 'package.json');
  if (!existsSync(manifestPath)) {
    if (subpath === '.' && existsSync(join(dir, 'index.js'))) return join(dir, 'index.js');
    throw fail(spec, `'${dir}' has no package.json.`);
  }
  let manifest: { exports?: unknown; main?: unknown };
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as typeof manifest;
  } catch (cause) {
    throw fail(spec, `'${manifestPath}' is not valid JSON.`, cause);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw fail(spec, `'${manifestPath}' does not hold a JSON object.`);
  }
  const exported = manifest.exports;
  if (exported !== undefined) {
    const keys = typeof exported === 'object' && exported !== null ? Object.keys(exported) : [];
    const bySubpath = keys.some((k) => k.startsWith('.'));
    const entry = bySubpath
      ? (exported as Record<string, unknown>)[subpath]
      : subpath === '.'
        ? exported
        : undefined;
    const target = exportTarget(entry);
    if (!target) throw fail(spec, `the package in '${dir}' exports no '${subpath}' for import.`);
    return join(dir, target);
  }
  if (subpath !== '.') return join(dir, subpath);
  return join(dir, typeof manifest.main === 'string' ? manifest.main : 'index.js');
}

/** `@scope/name/sub` → `['@scope/name', './sub']`. */
function splitName(spec: string): [string, string] {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  const rest = parts.slice(n).join('/');
  return [parts.slice(0, n).join('/'), rest ? `./${rest}` : '.'];
}

/** The file to import for `spec`: a path (file or package directory), or a package name from `cwd`. */
export function resolveEnvPackage(spec: string, cwd: string): string {
  if (isPathLike(spec)) {
    const path = spec.startsWith('file:') ? fileURLToPath(spec) : resolve(cwd, spec);
    if (!existsSync(path)) throw fail(spec, `no such file or directory: '${path}'.`);
    return statSync(path).isDirectory() ? packageEntry(spec, path, '.') : path;
  }
  const [name, subpath] = splitName(spec);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return packageEntry(spec, candidate, subpath);
    if (dirname(dir) === dir) break;
  }
  throw fail(
    spec,
    `cannot find package '${name}' from '${cwd}'; install it in this project, or give a path (./my-env).`,
  );
}

const isTypeScript = (file: string): boolean => /\.[cm]?tsx?$/.test(file);

/** Registers tsx's loader (resolved from the package, else the working directory); false when missing. */
async function registerTsx(file: string, cwd: string): Promise<boolean> {
  for (const from of [file, join(cwd, 'package.json')]) {
    try {
      const api = createRequire(from).resolve('tsx/esm/api');
      const { register } = (await import(pathToFileURL(api).href)) as { register: () => unknown };
      register();
      return true;
    } catch {
      // try the next place
    }
  }
  return false;
}

async function importEntry(spec: string, file: string, cwd: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && isTypeScript(file)) {
      // Node keeps the failed load of `url`: import it again under another URL once tsx is registered.
      if (await registerTsx(file, cwd)) return (await import(`${url}?tsx`)) as Record<string, unknown>;
      throw fail(
        spec,
        `its entry '${file}' is TypeScript and tsx is not installed; build the package to JavaScript or install tsx.`,
        error,
      );
    }
    throw fail(spec, `importing '${file}' failed: ${(error as Error).message}`, error);
  }
}

/**
 * Imports env package `spec`, checks its definition, adds it to the env registry and checks that its
 * defaults resolve. Returns the definition.
 */
export async function loadEnvPackage(spec: string, cwd: string = process.cwd()): Promise<EnvDefinitionV1> {
  const file = resolveEnvPackage(spec, cwd);
  const module = await importEntry(spec, file, cwd);
  const value = module.envDefinition ?? module.default;
  if (value === undefined) {
    const names = Object.keys(module);
    throw fail(
      spec,
      `'${file}' exports no 'envDefinition' and no default export (an EnvDefinitionV1 of @mage-rl/core); its exports: ${names.join(', ') || 'none'}.`,
    );
  }
  const definition = addEnvDefinition(value, { package: spec });
  try {
    resolveTrainConfig({}, { env: definition.id, preset: 'smoke' });
    // Its recipe's values over the preset they are for.
    if (definition.recipe) resolveTrainConfig({}, { env: definition.id });
  } catch (error) {
    if (!MageError.isInstance(error)) throw error;
    throw fail(
      spec,
      `the defaults or recipe of env '${definition.id}' do not resolve: ${error.message}`,
      error,
    );
  }
  return definition;
}

export interface EnvPackageUse {
  /** The config values, with `env.package` set when a package is used (so the resolved config records it). */
  readonly overrides: TrainConfigInput;
  /** The env the package defines. */
  readonly definition?: EnvDefinitionV1;
}

/**
 * The env package a command asks for — `--env-package`, else `env.package` of the config values — loaded
 * into the registry. Nothing to do without one.
 */
export async function useEnvPackage(
  flag: string | undefined,
  overrides: TrainConfigInput,
  cwd: string = process.cwd(),
): Promise<EnvPackageUse> {
  const spec = flag ?? overrides.env?.package;
  if (spec === undefined) return { overrides };
  const definition = await loadEnvPackage(spec, cwd);
  return {
    overrides: mergeConfig<TrainConfigInput>(overrides, { env: { package: spec } }),
    definition,
  };
}

/**
 * The env package a run directory recorded (`env.package` of its config.json), so that `--resume` finds a
 * package env without `--env-package`; `undefined` when the directory has no config or used a built-in env.
 */
export async function recordedEnvPackage(runDir: string): Promise<string | undefined> {
  const path = join(runDir, 'config.json');
  if (!existsSync(path)) return undefined;
  const spec = valueAt(await readJsonFile(path), ['extra', 'env', 'package']);
  return typeof spec === 'string' ? spec : undefined;
}
