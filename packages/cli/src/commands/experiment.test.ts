import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EXPERIMENT_FORMAT } from '@mage-rl/trainer';
import { checkExperiment, evalPath, experimentPolicies } from '@mage-rl/trainer/internals';
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

  it('refuses a grid over the warm start, which a seed shares: --set names it for the whole experiment', () => {
    const spec = {
      format: EXPERIMENT_FORMAT,
      env: 'tictactoe',
      preset: 'smoke',
      methods: ['warm-start', 'mage'],
      seeds: [1],
      overrides: {},
      grid: [gridAxis('warmStart.adaptive=0,0.5')],
      evalMemories: ['reflection'],
    } as const;
    expect(() => checkExperiment(spec)).toThrow(/`spec\.overrides` \(warmStart\.adaptive=<value>/);
    expect(checkExperiment({ ...spec, grid: [], overrides: { warmStart: { adaptive: 0.5 } } })).toHaveLength(
      2,
    );
  });

  it('refuses a method that does not train before anything runs, pointing at mage eval', async () => {
    const r = await runCaptured(
      commandLine('experiment --preset smoke --methods warm-start,react --seeds 1'),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/--methods: 'react' does not train .*mage eval --method react/);
  });

  describe('smoke grid (slow: warm start, one iteration, evaluations)', () => {
    const tmp = useTempDir('mage-experiment-');

    it('trains, evaluates every policy under one protocol, aggregates, and resumes where it stopped', async () => {
      const out = join(tmp.path, 'exp');
      const argv = [
        ...commandLine(
          'experiment --preset smoke --methods warm-start,mage --seeds 1 --eval-memory reflection,none --set train.iterations=1',
        ),
        '--out',
        out,
        '--cache-dir',
        join(tmp.path, 'cache'),
      ];
      const first = await runJson<{ results: string; markdown: string; evaluations: number }>(argv);
      expect(first.evaluations).toBe(4);
      // The experiment evaluates the warm start itself, so pretraining skipped its own evaluation.
      const [entry] = await readdir(join(tmp.path, 'cache', 'mage-tiny'));
      const warmStart = JSON.parse(
        await readFile(join(tmp.path, 'cache', 'mage-tiny', entry as string, 'mage-tiny.json'), 'utf8'),
      ) as { warmStart: { results: unknown[] } };
      expect(warmStart.warmStart.results).toEqual([]);
      type Means = { passAtK: { mean: number }[] };
      const results = JSON.parse(await readFile(first.results, 'utf8')) as {
        rows: { label: string; memory: string; suite: string; overall: Means }[];
        memoryBenefit: { label: string; memory: string; suite: string; overall: Means }[];
      };
      expect(results.rows.map((r) => `${r.label}/${r.memory}/${r.suite}`).sort()).toEqual([
        'mage/none/in-domain',
        'mage/none/out-of-domain',
        'mage/reflection/in-domain',
        'mage/reflection/out-of-domain',
        'warm-start/none/in-domain',
        'warm-start/none/out-of-domain',
        'warm-start/reflection/in-domain',
        'warm-start/reflection/out-of-domain',
      ]);
      expect(results.rows[0]?.overall.passAtK).toHaveLength(3);
      // The memory benefit of each policy and suite: with reflection minus with none, attempt by attempt.
      expect(results.memoryBenefit.map((b) => `${b.label}/${b.memory}/${b.suite}`).sort()).toEqual([
        'mage/reflection/in-domain',
        'mage/reflection/out-of-domain',
        'warm-start/reflection/in-domain',
        'warm-start/reflection/out-of-domain',
      ]);
      const row = (label: string, memory: string) =>
        results.rows.find((r) => r.label === label && r.memory === memory && r.suite === 'in-domain')!;
      const benefit = results.memoryBenefit.find((b) => b.label === 'mage' && b.suite === 'in-domain')!;
      benefit.overall.passAtK.forEach((m, k) => {
        const withNotes = row('mage', 'reflection').overall.passAtK[k]!.mean;
        expect(m.mean).toBeCloseTo(withNotes - row('mage', 'none').overall.passAtK[k]!.mean, 12);
      });
      const markdown = await readFile(first.markdown, 'utf8');
      expect(markdown).toMatch(/\| mage \| reflection \| 1 \|/);
      // How much of each attempt the model's notes state, beside the share the note budget cut.
      expect(markdown).toMatch(/notes cut % \| notes recall % \|/);
      expect(markdown).toMatch(/Memory benefit[\s\S]*\| mage \| reflection − none \| 1 \| [+−]\d/);

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
      expect(fewer.evaluations).toBe(2);
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
