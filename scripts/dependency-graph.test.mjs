import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  closureOf,
  currentSection,
  dependencyUse,
  OVERVIEW,
  pullsMlRuntime,
  readPackages,
  renderGraph,
  replaceSection,
} from './dependency-graph.mjs';

const root = new URL('..', import.meta.url).pathname;

describe('the dependency graph of architecture/overview.md', () => {
  it('is the one the package.json files give (run `node scripts/dependency-graph.mjs --write` after changing dependencies)', () => {
    const generated = renderGraph(readPackages(root));
    expect(currentSection(readFileSync(OVERVIEW, 'utf8'))).toBe(generated);
  });

  it('declares in every package.json exactly the packages its sources import', () => {
    const drift = readdirSync(join(root, 'packages'))
      .filter((folder) => existsSync(join(root, 'packages', folder, 'package.json')))
      .map((folder) => ({ folder, ...dependencyUse(root, folder) }))
      .filter((u) => u.missing.length > 0 || u.unused.length > 0);
    expect(drift).toEqual([]);
  });

  it('keeps recipes and everything it imports free of the model runtime (the light install)', () => {
    const pkgs = readPackages(root);
    const light = ['recipes', ...closureOf(pkgs, 'recipes')];
    expect(light).toEqual(expect.arrayContaining(['core', 'envs', 'opponents', 'reflection', 'gigpo']));
    expect(light.filter((p) => pullsMlRuntime(pkgs, p))).toEqual([]);
    expect(pullsMlRuntime(pkgs, 'learner')).toBe(true);
  });

  it('reads whatever packages exist: a new one appears in the graph and the table', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mage-dep-graph-'));
    try {
      const write = (folder, manifest) => {
        mkdirSync(join(dir, 'packages', folder), { recursive: true });
        writeFileSync(join(dir, 'packages', folder, 'package.json'), JSON.stringify(manifest));
      };
      write('spec', { name: '@mage-rl/spec' });
      write('core', { name: '@mage-rl/core', dependencies: { '@mage-rl/spec': 'workspace:*', zod: '4' } });
      write('envs', {
        name: '@mage-rl/envs',
        dependencies: { '@mage-rl/core': 'workspace:*', '@mage-rl/spec': 'workspace:*' },
      });
      write('learner', { name: '@mage-rl/learner', dependencies: { 'onnxruntime-node': '1' } });
      const section = renderGraph(readPackages(dir));
      // envs → spec is implied by envs → core → spec: the graph leaves it out, the table keeps it.
      expect(section).toContain('  envs --> core\n  learner\n');
      expect(section).not.toContain('envs --> spec');
      expect(section).toContain('| `envs` | `core`, `spec` | — | no |');
      expect(section).toContain('| `learner` | — | `onnxruntime-node` | yes |');
      expect(section).toContain('| `spec` | — | — | no |');
      const doc = `# x\n\nbefore\n${renderGraph([])}\nafter\n`;
      expect(replaceSection(doc, section)).toBe(`# x\n\nbefore\n${section}\nafter\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
