import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXPERIMENT_FORMAT, type ExperimentSpecV1 } from '@mage-rl/trainer';
import { checkExperiment, evalPath, experimentPolicies, policyMemories } from '@mage-rl/trainer/internals';
import { describe, expect, it } from 'vitest';
import { commandLine, runCaptured, runJson, saveTinyModel, useTempDir } from '../testing/cli.test-helper';
import { useNumberGame } from '../testing/number-game.test-helper';
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

  it('takes the foreign-notes protocol only beside reflection, for every policy that lists it', async () => {
    const spec: ExperimentSpecV1 = {
      format: EXPERIMENT_FORMAT,
      env: 'tictactoe',
      preset: 'smoke',
      methods: ['warm-start', 'mage', 'gigpo'],
      seeds: [1],
      overrides: {},
      grid: [],
      evalMemories: ['none', 'foreign-notes'],
    };
    expect(() => checkExperiment(spec)).toThrow(/'foreign-notes' shows .* list 'reflection' too/);
    expect(() => checkExperiment({ ...spec, evalMemories: ['reflection', 'notes' as 'none'] })).toThrow(
      /unknown protocol 'notes'/,
    );
    const full = { ...spec, evalMemories: ['reflection', 'none', 'foreign-notes'] } as const;
    expect(checkExperiment(full)).toHaveLength(3);
    // GiGPO trained with no memory is evaluated with reflection and foreign notes like the others.
    expect(policyMemories(full, 'gigpo')).toEqual(['reflection', 'none', 'foreign-notes']);
    expect(policyMemories({ evalMemories: ['method', 'reflection', 'foreign-notes'] }, 'gigpo')).toEqual([
      'none',
      'reflection',
      'foreign-notes',
    ]);
    const r = await runCaptured(
      commandLine(
        'experiment --preset smoke --methods warm-start --seeds 1 --eval-memory none,foreign-notes',
      ),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/--eval-memory: 'foreign-notes' shows .* list 'reflection' too/);
  });

  it('takes a note donor only with the foreign-notes protocol', async () => {
    const r = await runCaptured(
      commandLine(
        'experiment --preset smoke --methods warm-start --seeds 1 --eval-memory reflection --note-donor teacher',
      ),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /--note-donor gives the foreign-notes control its notes: list 'foreign-notes' in --eval-memory/,
    );
  });

  describe('checks every flag before anything runs', () => {
    const tmp = useTempDir('mage-experiment-flags-');
    /** `mage experiment` with `words` after a smoke grid whose directory is `out` (and its cache beside). */
    const refused = async (words: readonly string[]) => {
      const out = join(tmp.path, 'out');
      const started = performance.now();
      const r = await runCaptured([
        ...commandLine('experiment --preset smoke --methods warm-start,mage --seeds 1,2'),
        ...['--out', out, '--cache-dir', join(tmp.path, 'cache')],
        ...words,
      ]);
      const seconds = (performance.now() - started) / 1000;
      expect(r.code).toBe(1);
      // Nothing was written: no experiment record, no warm start, no run.
      await expect(readdir(tmp.path)).resolves.not.toContain('out');
      await expect(readdir(tmp.path)).resolves.not.toContain('cache');
      return { err: r.err, seconds };
    };
    const foreignNotes = ['--eval-memory', 'reflection,foreign-notes'];

    it('a note donor that is not there: the flag and the path, within seconds, before any training or evaluation', async () => {
      const missing = join(tmp.path, 'no-donor');
      const r = await refused([...foreignNotes, '--note-donor', missing]);
      expect(r.err).toMatch(
        `mage: --note-donor '${missing}': no such directory (${missing}); --note-donor takes 'teacher' (the env's warm-start teacher), a run directory (its latest checkpoint) or a mage-tiny or Hugging Face model directory.`,
      );
      // What mage experiment cannot take is not offered.
      expect(r.err).not.toMatch(/server URL|with --model/);
      expect(r.seconds).toBeLessThan(10);
    });

    it('a note donor of the wrong shape: a file, a directory holding no model, a run without its warm start, a URL', async () => {
      const file = join(tmp.path, 'donor.txt');
      await writeFile(file, 'x');
      expect((await refused([...foreignNotes, '--note-donor', file])).err).toMatch(
        `--note-donor '${file}': is a file, not a directory`,
      );
      const empty = join(tmp.path, 'empty');
      await mkdir(empty, { recursive: true });
      expect((await refused([...foreignNotes, '--note-donor', empty])).err).toMatch(
        `--note-donor '${empty}': ${empty} is neither a run directory (no checkpoint) nor a model directory`,
      );
      // A run whose recorded warm start was deleted (a cache entry cleared since).
      const run = join(tmp.path, 'run');
      await mkdir(join(run, 'checkpoints', 'iter-000000'), { recursive: true });
      await writeFile(
        join(run, 'config.json'),
        JSON.stringify({ format: 'mage-rl/run-config@1', extra: { warmStartDir: join(tmp.path, 'gone') } }),
      );
      const state = {
        format: 'mage-rl/training-checkpoint@1',
        ...{ iteration: 0, nextIteration: 1, seed: 1, learnerId: 'mage-tiny', metricsLines: 0, memory: null },
      };
      await writeFile(join(run, 'checkpoints', 'iter-000000', 'state.json'), JSON.stringify(state));
      expect((await refused([...foreignNotes, '--note-donor', run])).err).toMatch(
        `--note-donor '${run}': the warm start its run recorded, ${join(tmp.path, 'gone')}, is not a model directory`,
      );
      expect((await refused([...foreignNotes, '--note-donor', 'http://127.0.0.1:9/v1'])).err).toMatch(
        "--note-donor 'http://127.0.0.1:9/v1': a server URL, which an experiment does not play; --note-donor takes 'teacher'",
      );
    });

    it('a --model that is not a model directory, and an env without a teacher with no --model', async () => {
      const missing = join(tmp.path, 'no-model');
      expect((await refused(['--model', missing])).err).toMatch(
        `mage: --model '${missing}': no such directory (${missing}); --model takes a mage-tiny directory (mage-tiny.json) or a Hugging Face checkpoint directory (config.json + *.safetensors).`,
      );
      const openenv = await refused(['--env', 'openenv', '--env-url', 'http://127.0.0.1:9']);
      expect(openenv.err).toMatch(/Env 'openenv' has no warm-start teacher.*--model <dir>/);
      // The teacher as a donor needs an env that has one.
      const model = await saveTinyModel(join(tmp.path, 'model'), 1);
      const teacher = await refused([
        ...['--env', 'openenv', '--env-url', 'http://127.0.0.1:9', '--model', model],
        ...[...foreignNotes, '--note-donor', 'teacher'],
      ]);
      expect(teacher.err).toMatch(/--note-donor 'teacher': env 'openenv' has no warm-start teacher/);
    });
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

    it('plays foreign notes drawn from the reflection evaluation, in the same call or replayed from disk', async () => {
      const out = join(tmp.path, 'foreign');
      const argv = [
        ...commandLine(
          'experiment --preset smoke --methods warm-start --seeds 1 --eval-memory reflection,none,foreign-notes',
        ),
        '--out',
        out,
        '--cache-dir',
        join(tmp.path, 'cache'),
      ];
      const first = await runJson<{ results: string; markdown: string; evaluations: number }>(argv);
      expect(first.evaluations).toBe(3);
      const path = evalPath(out, 'warm-start', 1, 'foreign-notes');
      expect(path).toMatch(/evals\/warm-start-s1\.foreign-notes\.json$/);
      const before = JSON.parse(await readFile(path, 'utf8')) as {
        memory: string;
        suites: { swaps?: { replaced: number; sameText: number } }[];
      };
      expect(before.memory).toBe('foreign-notes');
      // Each suite records how many of its notes were swapped and how many by the same text.
      expect(before.suites[0]?.swaps?.replaced).toBeGreaterThan(0);
      for (const suite of before.suites) {
        expect(suite.swaps?.sameText).toBeLessThanOrEqual(suite.swaps?.replaced ?? -1);
      }
      type Means = { passAtK: { mean: number }[] };
      const results = JSON.parse(await readFile(first.results, 'utf8')) as {
        rows: { label: string; memory: string; suite: string; overall: Means }[];
        memoryBenefit: { memory: string; versus: string }[];
        notesBenefit: { label: string; memory: string; versus: string; suite: string; overall: Means }[];
      };
      expect(results.notesBenefit.map((b) => `${b.label}/${b.memory}−${b.versus}/${b.suite}`)).toEqual([
        'warm-start/reflection−foreign-notes/in-domain',
        'warm-start/reflection−foreign-notes/out-of-domain',
      ]);
      expect(results.memoryBenefit.map((b) => `${b.memory}−${b.versus}`).sort()).toEqual([
        'foreign-notes−none',
        'foreign-notes−none',
        'reflection−none',
        'reflection−none',
      ]);
      // Attempt 1 follows no note: with foreign notes it plays exactly as with its own.
      for (const suite of ['in-domain', 'out-of-domain']) {
        const passAt1 = (memory: string) =>
          results.rows.find((r) => r.memory === memory && r.suite === suite)?.overall.passAtK[0]?.mean;
        expect(passAt1('foreign-notes')).toBeDefined();
        expect(passAt1('foreign-notes')).toBe(passAt1('reflection'));
      }
      expect(results.notesBenefit.every((b) => b.overall.passAtK[0]?.mean === 0)).toBe(true);
      const markdown = await readFile(first.markdown, 'utf8');
      expect(markdown).toMatch(/Own notes minus foreign notes[\s\S]*\| warm-start \| all \| 1 \| \+0\.0 \|/);
      expect(markdown).toMatch(/\| warm-start \| all \| 1 \| .* \| \d+ of \d+ \(\d+\.\d%\) \|/);
      expect(markdown).toMatch(/\| warm-start \| foreign-notes \| 1 \|/);

      // A later call with the reflection evaluation on disk replays it in memory for the notes: the same
      // games, so the same foreign notes and the same numbers.
      await rm(path);
      const again = await runCaptured(argv);
      expect(again.code).toBe(0);
      expect(again.err).toMatch(/replay warm-start, seed 1, memory reflection in memory/);
      expect(again.err).toMatch(/the replay matches the stored reflection evaluation of warm-start, seed 1/);
      const after = JSON.parse(await readFile(path, 'utf8')) as { suites: unknown };
      expect(after.suites).toEqual(before.suites);
    }, 600_000);

    it("shows the note donor's notes on the same tasks with --note-donor, and keeps the donor per directory", async () => {
      const out = join(tmp.path, 'donor');
      const common = [
        ...commandLine('experiment --preset smoke --methods warm-start --seeds 1'),
        '--out',
        out,
        '--cache-dir',
        join(tmp.path, 'cache'),
      ];
      const first = await runJson<{ markdown: string; evaluations: number }>([
        ...common,
        ...['--eval-memory', 'reflection,foreign-notes', '--note-donor', 'teacher'],
      ]);
      expect(first.evaluations).toBe(2);
      const record = JSON.parse(await readFile(evalPath(out, 'warm-start', 1, 'foreign-notes'), 'utf8')) as {
        noteDonor?: string;
        suites: { swaps?: { replaced: number; sameText: number } }[];
      };
      expect(record.noteDonor).toBe('teacher');
      // The teacher's notes replace the policy's own (where a later attempt was played), and some differ.
      const swaps = record.suites.map((suite) => suite.swaps ?? { replaced: -1, sameText: -1 });
      expect(swaps.every((w) => w.replaced >= 0 && w.sameText <= w.replaced)).toBe(true);
      expect(swaps.some((w) => w.sameText < w.replaced)).toBe(true);
      expect(await readFile(first.markdown, 'utf8')).toMatch(
        /note donor's \(teacher\) reflection evaluation/,
      );
      // The donor is part of the directory's protocol: a call without it is another experiment.
      const other = await runCaptured([...common, '--eval-memory', 'reflection,foreign-notes']);
      expect(other.code).toBe(1);
      expect(other.err).toMatch(/holds another experiment .*note donor/);
    }, 600_000);
  });

  describe('--model on an env without a warm-start teacher (slow: OpenEnv number game, one smoke iteration)', () => {
    const tmp = useTempDir('mage-experiment-openenv-');
    const game = useNumberGame();

    it('trains from the model, evaluates it and the trained run, and records the model in the protocol', async () => {
      const model = await saveTinyModel(join(tmp.path, 'model'), 1);
      const out = join(tmp.path, 'exp');
      const cache = join(tmp.path, 'cache');
      const argv = [
        ...commandLine(
          'experiment --env openenv --preset smoke --methods warm-start,mage --seeds 1 --eval-memory reflection,none --set train.iterations=1',
        ),
        ...['--env-url', game.url, '--model', model, '--out', out, '--cache-dir', cache],
      ];
      const first = await runJson<{ results: string; evaluations: number }>(argv);
      expect(first.evaluations).toBe(4);
      // No warm start was pretrained: every seed started from the model.
      await expect(readdir(cache)).rejects.toThrow();
      const warm = JSON.parse(await readFile(evalPath(out, 'warm-start', 1, 'reflection'), 'utf8')) as {
        policy: string;
        suites: { metrics: { overall: { metaEpisodes: number; playTurns: number } } }[];
      };
      expect(warm.policy).toBe(model);
      expect(warm.suites[0]?.metrics.overall.metaEpisodes).toBeGreaterThan(0);
      expect(warm.suites[0]?.metrics.overall.playTurns).toBeGreaterThan(0);
      const trained = JSON.parse(await readFile(evalPath(out, 'mage', 1, 'none'), 'utf8')) as {
        policy: string;
      };
      expect(trained.policy).toMatch(/runs\/mage-s1\/checkpoints\/iter-000000$/);
      const run = JSON.parse(await readFile(join(out, 'runs', 'mage-s1', 'config.json'), 'utf8')) as {
        extra: { warmStartDir: string };
      };
      expect(run.extra.warmStartDir).toBe(model);
      const record = JSON.parse(await readFile(join(out, 'experiment.json'), 'utf8')) as {
        spec: { model?: string };
      };
      expect(record.spec.model).toBe(model);
      // The model is part of the directory's protocol: a call with another one is another experiment.
      const another = await saveTinyModel(join(tmp.path, 'another'), 2);
      const other = await runCaptured(argv.map((w) => (w === model ? another : w)));
      expect(other.code).toBe(1);
      expect(other.err).toMatch(/holds another experiment .*note donor or model/);
    }, 600_000);
  });
});
