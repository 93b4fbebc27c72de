import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { evalPath, experimentPolicies } from '@mage-rl/trainer';
import { describe, expect, it } from 'vitest';
import { commandLine, runCaptured, runJson, useTempDir } from '../testing/cli.test-helper';
import { gridAxis } from './experiment';

describe('mage experiment', () => {
  it('crosses switch values with every trained method, warm start first', () => {
    const policies = experimentPolicies({
      methods: ['mage', 'warm-start', 'gigpo'],
      grid: [gridAxis('advantage.episodeBaseline=row,attempt'), gridAxis('ppo.lr=1e-4')],
    });
    expect(policies.map((p) => p.label)).toEqual([
      'warm-start',
      'mage[advantage.episodeBaseline=row,ppo.lr=0.0001]',
      'mage[advantage.episodeBaseline=attempt,ppo.lr=0.0001]',
      'gigpo[advantage.episodeBaseline=row,ppo.lr=0.0001]',
      'gigpo[advantage.episodeBaseline=attempt,ppo.lr=0.0001]',
    ]);
    expect(() => gridAxis('ppo.lr')).toThrow(/--grid expects/);
  });

  describe('smoke grid (slow: warm start, one iteration, evaluations)', () => {
    const tmp = useTempDir('mage-experiment-');

    it('trains, evaluates every policy under one protocol, aggregates, and resumes where it stopped', async () => {
      const out = join(tmp.path, 'exp');
      const argv = [
        ...commandLine(
          'experiment --preset smoke --methods warm-start,mage --seeds 1 --eval-memory reflection --set train.iterations=1',
        ),
        '--out',
        out,
        '--cache-dir',
        join(tmp.path, 'cache'),
      ];
      const first = await runJson<{ results: string; markdown: string; evaluations: number }>(argv);
      expect(first.evaluations).toBe(2);
      const results = JSON.parse(await readFile(first.results, 'utf8')) as {
        rows: { label: string; memory: string; suite: string; overall: { passAtK: unknown[] } }[];
      };
      expect(results.rows.map((r) => `${r.label}/${r.memory}/${r.suite}`).sort()).toEqual([
        'mage/reflection/in-domain',
        'mage/reflection/out-of-domain',
        'warm-start/reflection/in-domain',
        'warm-start/reflection/out-of-domain',
      ]);
      expect(results.rows[0]?.overall.passAtK).toHaveLength(3);
      expect(await readFile(first.markdown, 'utf8')).toMatch(/\| mage \| reflection \| 1 \|/);

      // A lost evaluation is redone from the finished run, with the same numbers.
      const path = evalPath(out, 'mage', 1, 'reflection');
      const before = JSON.parse(await readFile(path, 'utf8')) as { suites: unknown };
      await rm(path);
      await runJson(argv);
      const after = JSON.parse(await readFile(path, 'utf8')) as { suites: unknown };
      expect(after.suites).toEqual(before.suites);

      // Another protocol in the same directory is refused; more methods or seeds may be added.
      const other = await runCaptured([...argv, '--set', 'ppo.lr=0.01']);
      expect(other.code).toBe(1);
      expect(other.err).toMatch(/holds another experiment/);
      const fewer = await runJson<{ evaluations: number }>([...argv.slice(0, 4), 'mage', ...argv.slice(5)]);
      expect(fewer.evaluations).toBe(1);
      const record = JSON.parse(await readFile(join(out, 'experiment.json'), 'utf8')) as {
        spec: { methods: string[] };
        commands: string[];
        calls: { command: string; commit: string | null }[];
      };
      expect(record.spec.methods).toEqual(['warm-start', 'mage']);
      expect(record.commands).toHaveLength(2);
      // Every call that wrote the directory (the refused one did not), each with its commit.
      expect(record.calls.map((c) => c.command)).toEqual([
        record.commands[0],
        record.commands[0],
        record.commands[1],
      ]);
      expect(record.calls[0]?.commit).toMatch(/^[0-9a-f]{40}$/);

      // The report can be rewritten from the evaluation records alone.
      await rm(first.markdown);
      const rewritten = await runJson<{ markdown: string }>(['experiment', '--report-only', '--out', out]);
      expect(await readFile(rewritten.markdown, 'utf8')).toMatch(/\| warm-start \| reflection \| 1 \|/);
      expect(await readFile(rewritten.markdown, 'utf8')).toMatch(/at commit `[0-9a-f]{7}`/);
      const notExperiment = await runCaptured([
        'experiment',
        '--report-only',
        '--out',
        join(tmp.path, 'nothing'),
      ]);
      expect(notExperiment.err).toMatch(/not an experiment directory/);
    }, 600_000);
  });
});
