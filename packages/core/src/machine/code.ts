/**
 * Which code a process runs, as records name it: the commit of the git checkout the code runs from (and
 * whether its tracked files differ from it), or, for an installed package, why there is none; and the
 * `@mage-rl/*` package versions. Two records are comparable only when they name the same code, so every
 * run directory, evaluation file and experiment records this beside its machine. Git is optional: no git
 * binary, no checkout or an installed package is recorded as such, never an error. See
 * architecture/records.md.
 */

import { execFileSync } from 'node:child_process';
import { type Dirent, existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Why a description has no commit. */
export type NoCommitReason = 'installed package' | 'no git' | 'not a git checkout';

/** The code a process ran. */
export interface CodeV1 {
  /** `git rev-parse HEAD` of the checkout the code runs from; null when there is none (`noCommit` says why). */
  readonly commit: string | null;
  /**
   * Whether `git status --porcelain --untracked-files=no` lists changes: tracked files that differ from the
   * commit. Untracked files (run outputs, caches) do not count. Null without a commit.
   */
  readonly dirty: boolean | null;
  /** Why there is no commit; absent with one. */
  readonly noCommit?: NoCommitReason;
  /** Versions of the `@mage-rl/*` packages the process runs, by name. */
  readonly packages: Readonly<Record<string, string>>;
  /**
   * In a checkout, the packages among `packages` whose built `dist/` is older than a file of their `src/`:
   * the process runs a build of some earlier code, so `commit` (and `dirty`) describe the sources, not
   * what ran. Absent when every build is current.
   */
  readonly staleBuild?: readonly string[];
}

export interface DescribeCodeOptions {
  /**
   * A file or directory of the running code, e.g. the caller's `import.meta.url`: its checkout is the one
   * described. Default: this package's own location.
   */
  readonly from?: string | URL;
  /** Package names whose versions to record besides `@mage-rl/core`'s, resolved from `from`. */
  readonly packages?: readonly string[];
  /** The git executable (default `git` on the PATH). */
  readonly git?: string;
}

const toPath = (from: string | URL): string =>
  from instanceof URL || from.startsWith('file:') ? fileURLToPath(from) : resolve(from);

/** The nearest directory at or above `path` holding a `package.json`, or null. */
function packageRoot(path: string): string | null {
  let dir = existsSync(path) && statSync(path).isDirectory() ? path : dirname(path);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

function versionIn(root: string | null): [string, string] | null {
  if (root === null) return null;
  try {
    const json = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    return typeof json.name === 'string' && typeof json.version === 'string'
      ? [json.name, json.version]
      : null;
  } catch {
    return null;
  }
}

/** The package that holds `from` and those of `names` resolved from it: [name, version, root directory]. */
function resolvedPackages(from: string | URL, names: readonly string[]): [string, string, string][] {
  const path = toPath(from);
  const out: [string, string, string][] = [];
  const add = (root: string | null) => {
    const found = versionIn(root);
    if (found && root !== null) out.push([found[0], found[1], root]);
  };
  add(packageRoot(path));
  const require = createRequire(path);
  for (const name of names) {
    try {
      add(dirname(require.resolve(`${name}/package.json`)));
    } catch {
      // Not installed beside the caller: nothing to record for it.
    }
  }
  return out;
}

/**
 * The versions of `names` as resolved from `from` (each package's `package.json`), with the package that
 * holds `from` itself; a name that does not resolve is left out.
 */
export function packageVersions(from: string | URL, names: readonly string[] = []): Record<string, string> {
  return versionsOf(resolvedPackages(from, names));
}

/** Resolved packages ([name, version, root]) as name → version, sorted by name (a later entry wins). */
function versionsOf(packages: readonly [string, string, string][]): Record<string, string> {
  const out = Object.fromEntries(packages.map(([name, version]) => [name, version]));
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** The newest modification time of a file under `dir` (0 for none or a missing directory). */
function newestFile(dir: string): number {
  let newest = 0;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestFile(path));
    else if (e.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** The names of `packages` ([name, version, root]) whose `dist/` is older than a file of their `src/`. */
function staleOf(packages: readonly [string, string, string][]): string[] {
  const stale = new Set<string>();
  for (const [name, , root] of packages) {
    const built = newestFile(join(root, 'dist'));
    if (built > 0 && newestFile(join(root, 'src')) > built) stale.add(name);
  }
  return [...stale].sort();
}

/**
 * The packages among `from`'s and `names` whose `dist/` was built before the last change to their `src/`
 * (by modification times, which a checkout or pull sets to the time it wrote a file; a package without
 * both directories, such as an installed one, is never stale).
 */
export function staleBuilds(from: string | URL, names: readonly string[] = []): string[] {
  return staleOf(resolvedPackages(from, names));
}

/** Runs git in `dir`: its trimmed output, or why it could not. */
function runGit(git: string, dir: string, args: readonly string[]): string | NoCommitReason {
  try {
    return execFileSync(git, ['-C', dir, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 20_000,
    }).trim();
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no git' : 'not a git checkout';
  }
}

const NO_COMMIT = new Set<string>(['installed package', 'no git', 'not a git checkout']);

/**
 * The commit and dirty flag of the checkout holding `path`. Code under `node_modules` is an installed
 * package (a checkout above it would be the user's project, not this code's).
 */
export function gitStateOf(
  path: string,
  git = 'git',
): Pick<CodeV1, 'commit' | 'dirty'> & { noCommit?: NoCommitReason } {
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // A path that does not exist is described as given.
  }
  if (real.split(sep).includes('node_modules'))
    return { commit: null, dirty: null, noCommit: 'installed package' };
  const dir = existsSync(real) && statSync(real).isDirectory() ? real : dirname(real);
  const commit = runGit(git, dir, ['rev-parse', '--verify', 'HEAD']);
  if (NO_COMMIT.has(commit) || !/^[0-9a-f]{40,64}$/.test(commit)) {
    return {
      commit: null,
      dirty: null,
      noCommit: NO_COMMIT.has(commit) ? (commit as NoCommitReason) : 'not a git checkout',
    };
  }
  const status = runGit(git, dir, ['status', '--porcelain', '--untracked-files=no']);
  return { commit, dirty: NO_COMMIT.has(status) ? null : status.length > 0 };
}

const cache = new Map<string, CodeV1>();

/**
 * Describes the code this process runs: the commit of the checkout `from` is in (git run once per
 * directory and process) and the package versions (`@mage-rl/core`'s and those of `packages`).
 */
export function describeCode(options: DescribeCodeOptions = {}): CodeV1 {
  const from = toPath(options.from ?? import.meta.url);
  const key = JSON.stringify([from, options.packages ?? [], options.git ?? 'git']);
  const known = cache.get(key);
  if (known) return known;
  const git = gitStateOf(from, options.git);
  const resolved = [
    ...resolvedPackages(import.meta.url, []),
    ...resolvedPackages(from, options.packages ?? []),
  ];
  // Only a process that runs built code can run a stale build (from sources, as under tsx, it cannot).
  const root = packageRoot(from);
  const builtCode = root !== null && from.startsWith(join(root, 'dist') + sep);
  const stale = git.commit === null || !builtCode ? [] : staleOf(resolved);
  const code: CodeV1 = {
    ...git,
    packages: versionsOf(resolved),
    ...(stale.length > 0 ? { staleBuild: stale } : {}),
  };
  cache.set(key, code);
  return code;
}

/** What a description says beside its commit: `dirty`, `stale build`, both, or nothing. */
function codeFlags(c: Record<string, unknown>): { dirty: boolean; stale: boolean } {
  return {
    dirty: c.dirty === true,
    stale: Array.isArray(c.staleBuild) && c.staleBuild.length > 0,
  };
}

/**
 * The notes a label puts after a commit: ` (dirty)`, ` (stale build)`, ` (dirty, stale build)` or ''.
 */
export function codeNotes(code: unknown): string {
  const { dirty, stale } = codeFlags(
    (typeof code === 'object' && code !== null ? code : {}) as Record<string, unknown>,
  );
  const notes = [...(dirty ? ['dirty'] : []), ...(stale ? ['stale build'] : [])];
  return notes.length > 0 ? ` (${notes.join(', ')})` : '';
}

/**
 * One line for a code description: `commit 1a2b3c4`, `commit 1a2b3c4 (dirty)`, `commit 1a2b3c4 (stale
 * build)` (the sources changed after the build that ran), or `no commit (installed
 * package; @mage-rl/core 0.1.0, …)`; `commit unknown` for records written before the description existed
 * or that hold something else.
 */
export function codeLabel(code: unknown): string {
  const c = (typeof code === 'object' && code !== null ? code : {}) as Record<string, unknown>;
  if (typeof c.commit === 'string' && c.commit !== '') return `commit ${c.commit.slice(0, 7)}${codeNotes(c)}`;
  const packages =
    typeof c.packages === 'object' && c.packages !== null
      ? Object.entries(c.packages)
          .filter(([, v]) => typeof v === 'string')
          .map(([k, v]) => `${k} ${String(v)}`)
      : [];
  if (typeof c.noCommit === 'string') {
    return `no commit (${[c.noCommit, ...(packages.length > 0 ? [packages.join(', ')] : [])].join('; ')})`;
  }
  return 'commit unknown';
}

/**
 * The commit a record's code description names, for grouping records: the full commit with `+dirty` when
 * the tree differed and `+stale` when a build was older than its sources, `no git <versions>` for code
 * without a commit, `unknown` for none.
 */
export function codeKey(code: unknown): string {
  const c = (typeof code === 'object' && code !== null ? code : {}) as Record<string, unknown>;
  if (typeof c.commit === 'string' && c.commit !== '') {
    const { dirty, stale } = codeFlags(c);
    return `${c.commit}${dirty ? '+dirty' : ''}${stale ? '+stale' : ''}`;
  }
  if (typeof c.noCommit === 'string') return codeLabel(code);
  return 'unknown';
}
