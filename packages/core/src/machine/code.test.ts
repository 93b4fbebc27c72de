import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storedPath } from '../io';
import { codeKey, codeLabel, describeCode, gitStateOf, packageVersions, staleBuilds } from './code';

const root = await mkdtemp(join(tmpdir(), 'mage-code-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { stdio: 'pipe' });

/** A package directory `name` with a package.json of `version` and one source file. */
async function packageDir(dir: string, name: string, version: string): Promise<string> {
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version }));
  await writeFile(join(dir, 'src', 'index.js'), 'export {};\n');
  return join(dir, 'src', 'index.js');
}

describe('describeCode', () => {
  it('names the commit of the checkout the code runs from, and whether tracked files differ from it', async () => {
    const repo = join(root, 'repo');
    const file = await packageDir(repo, '@mage-rl/probe', '1.2.3');
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'one');
    const head = git(repo, 'rev-parse', 'HEAD').toString().trim();
    expect(gitStateOf(file)).toEqual({ commit: head, dirty: false });
    // Untracked files (run outputs) leave the tree clean; a changed tracked file makes it dirty.
    await writeFile(join(repo, 'runs.txt'), 'output');
    expect(gitStateOf(file).dirty).toBe(false);
    await writeFile(file, 'export const changed = 1;\n');
    expect(gitStateOf(file)).toEqual({ commit: head, dirty: true });
    const code = describeCode({ from: file });
    expect(code.commit).toBe(head);
    // Its own package's version and core's.
    expect(code.packages['@mage-rl/probe']).toBe('1.2.3');
    expect(code.packages['@mage-rl/core']).toMatch(/^\d+\.\d+\.\d+/);
    expect(codeLabel(code)).toBe(`commit ${head.slice(0, 7)} (dirty)`);
    expect(codeKey(code)).toBe(`${head}+dirty`);
  });

  it('marks a build older than its sources as stale, only for code that runs from dist', async () => {
    const repo = join(root, 'built');
    const source = await packageDir(repo, '@mage-rl/built', '0.0.1');
    const built = join(repo, 'dist', 'index.js');
    await mkdir(dirname(built), { recursive: true });
    await writeFile(built, 'export const built = 1;\n');
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'one');
    const head = git(repo, 'rev-parse', 'HEAD').toString().trim();
    const old = new Date(Date.now() - 60_000);
    await utimes(built, old, old);
    expect(staleBuilds(built)).toEqual(['@mage-rl/built']);
    const code = describeCode({ from: built });
    expect(code.staleBuild).toContain('@mage-rl/built');
    expect(codeLabel(code)).toBe(`commit ${head.slice(0, 7)} (stale build)`);
    expect(codeKey(code)).toBe(`${head}+stale`);
    // The sources themselves never run a stale build; a build newer than its sources is current.
    expect(describeCode({ from: source }).staleBuild).toBeUndefined();
    const now = new Date();
    await utimes(built, now, now);
    expect(staleBuilds(built)).toEqual([]);
  });

  it('records an installed package, a directory outside any checkout and a missing git, never failing', async () => {
    // Under node_modules: an installed package, even inside a checkout (that checkout is the user's project).
    const installed = await packageDir(
      join(root, 'repo', 'node_modules', '@mage-rl', 'x'),
      '@mage-rl/x',
      '0.4.0',
    );
    expect(gitStateOf(installed)).toEqual({ commit: null, dirty: null, noCommit: 'installed package' });
    const code = describeCode({ from: installed });
    expect(code.packages['@mage-rl/x']).toBe('0.4.0');
    expect(codeLabel(code)).toMatch(/^no commit \(installed package; .*@mage-rl\/x 0\.4\.0/);
    // Outside any checkout (the temporary directory is not in one).
    const plain = await packageDir(join(root, 'plain'), 'plain', '0.0.1');
    expect(gitStateOf(plain)).toEqual({ commit: null, dirty: null, noCommit: 'not a git checkout' });
    // No git binary.
    const noGit = describeCode({
      from: join(root, 'repo', 'src', 'index.js'),
      git: join(root, 'no-such-git'),
    });
    expect(noGit).toMatchObject({ commit: null, dirty: null, noCommit: 'no git' });
    expect(codeLabel(noGit)).toMatch(/^no commit \(no git; /);
  });

  it('describes this checkout by default, and the versions of packages resolved from the caller', () => {
    const code = describeCode();
    expect(code.commit === null || /^[0-9a-f]{40}$/.test(code.commit)).toBe(true);
    expect(Object.keys(packageVersions(import.meta.url, ['@mage-rl/spec', '@mage-rl/absent']))).toEqual([
      '@mage-rl/core',
      '@mage-rl/spec',
    ]);
  });

  it('labels records written before the description as commit unknown', () => {
    for (const old of [undefined, null, {}, { commit: 7 }, 'abc']) {
      expect(codeLabel(old)).toBe('commit unknown');
      expect(codeKey(old)).toBe('unknown');
    }
  });
});

describe('storedPath', () => {
  it('stores a path inside the working directory relative to it, and any other absolute', () => {
    expect(storedPath('/work/p/runs/a', '/work/p')).toBe('runs/a');
    expect(storedPath('runs/a', '/work/p')).toBe('runs/a');
    expect(storedPath('/work/p', '/work/p')).toBe('.');
    expect(storedPath('/work/p/..x/y', '/work/p')).toBe('..x/y');
    expect(storedPath('/work/other/b', '/work/p')).toBe('/work/other/b');
    expect(storedPath('../other/b', '/work/p')).toBe('/work/other/b');
  });
});
