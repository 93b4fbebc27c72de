// The results scripts of docs/results/adaptation-from-scratch refuse to put evaluations of different
// commits in one table unless told to (--mixed-commits), and name files without a commit as unknown.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitOf } from '../docs/results/adaptation-from-scratch/commits.mjs';

const scripts = new URL('../docs/results/adaptation-from-scratch/', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mage-results-commits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const metrics = (rate) => ({
  overall: { perAttempt: [{ passAtK: { rate: rate / 2 } }, { passAtK: { rate } }] },
});
const benefit = (mean) => ({ passAtK: [{ mean: 0 }, { mean }] });
/** A `mage eval --json --foreign-notes` file at `code` (none: written before files named their code). */
function evalFile(prefix, seed, rate, code) {
  mkdirSync(join(dir, prefix, '..'), { recursive: true });
  const record = {
    metrics: metrics(rate),
    withoutMemory: metrics(rate - 0.2),
    withForeignNotes: metrics(rate - 0.1),
    memoryBenefit: benefit(0.2),
    notesBenefit: benefit(0.1),
    ...(code === undefined ? {} : { code }),
  };
  writeFileSync(join(dir, `${prefix}-s${seed}.json`), JSON.stringify(record));
}
const at = (c, dirty = false) => ({ commit: c.repeat(40), dirty, packages: { '@mage-rl/trainer': '0.1.0' } });
const run = (script, ...args) =>
  spawnSync(process.execPath, [join(scripts, script), ...args], { cwd: dir, encoding: 'utf8' });

for (const seed of [1, 2]) {
  evalFile('same/a', seed, 0.8, at('a'));
  evalFile('same/b', seed, 0.6, at('a'));
  evalFile('mixed/a', seed, 0.8, at('a'));
  evalFile('mixed/b', seed, 0.6, seed === 1 ? at('b') : at('a', true));
  evalFile('old/a', seed, 0.8);
  evalFile('old/b', seed, 0.6);
}

describe('aggregate.mjs and compare.mjs', () => {
  it('name the one commit of their files and print the table', () => {
    const agg = run('aggregate.mjs', '1', 'A=same/a', 'B=same/b');
    expect(agg.status).toBe(0);
    expect(agg.stderr).toBe(`code: ${'a'.repeat(12)} (4 file(s))\n`);
    expect(agg.stdout).toMatch(/^\| policy \| seeds \| pass@1 notes \|/);
    expect(agg.stdout).toContain('| A | 2 | 40.0 [40.0, 40.0] | 80.0 [80.0, 80.0] |');
    const cmp = run('compare.mjs', 'same/a', 'same/b');
    expect(cmp.status).toBe(0);
    expect(cmp.stdout).toMatch(/^seeds 1, 2: pass@K with notes 20\.0 \[20\.0, 20\.0\]/);
  });

  it('refuse files of different commits (a dirty tree included) unless --mixed-commits', () => {
    for (const [script, args] of [
      ['aggregate.mjs', ['1', 'A=mixed/a', 'B=mixed/b']],
      ['compare.mjs', ['mixed/a', 'mixed/b']],
    ]) {
      const refused = run(script, ...args);
      expect(refused.status).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/^refused: the files come from 3 versions of the code/);
      expect(refused.stderr).toContain(`  ${'b'.repeat(12)}: 1 file(s): mixed/b-s1.json`);
      expect(refused.stderr).toContain(`  ${'a'.repeat(12)}+dirty: 1 file(s): mixed/b-s2.json`);
      expect(refused.stderr).toContain('pass --mixed-commits');
      const allowed = run(script, '--mixed-commits', ...args);
      expect(allowed.status).toBe(0);
      expect(allowed.stderr).toMatch(/^--mixed-commits: the table mixes 3 versions of the code/);
      expect(allowed.stdout).not.toBe('');
    }
  });

  it('report files written before evaluations named their code as commit unknown', () => {
    const agg = run('aggregate.mjs', '1', 'A=old/a', 'B=old/b');
    expect(agg.status).toBe(0);
    expect(agg.stderr).toBe('code: commit unknown (4 file(s))\n');
    // Unknown beside a known commit is two versions.
    const cmp = run('compare.mjs', 'old/a', 'same/b');
    expect(cmp.status).toBe(1);
    expect(cmp.stderr).toMatch(/commit unknown: 2 file\(s\)/);
    expect(
      commitOf({
        code: {
          commit: null,
          dirty: null,
          noCommit: 'installed package',
          packages: { '@mage-rl/cli': '0.2.0' },
        },
      }),
    ).toBe('no commit (installed package, @mage-rl/cli 0.2.0)');
  });
});
