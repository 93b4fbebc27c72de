import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured, runJson, useTempDir } from '../testing/cli.test-helper';

const tmp = useTempDir('mage-eval-');

describe('mage eval input errors', () => {
  it('names a --policy path that does not exist or is a file, and what --policy takes', async () => {
    const missing = join(tmp.path, 'no-such-run');
    const r = await runCaptured(['eval', '--policy', missing, '--preset', 'smoke']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`--policy '${missing}': no such directory`);
    expect(r.err).toContain("--policy takes 'teacher'");
    const file = join(tmp.path, 'model.txt');
    await writeFile(file, 'x');
    const onFile = await runCaptured(['eval', '--policy', file, '--preset', 'smoke']);
    expect(onFile.err).toMatch(/is a file, not a directory/);
  });

  it('states the range of mcts-N when the id is out of range', async () => {
    for (const id of ['mcts-0', 'mcts-99999999']) {
      const r = await runCaptured(['eval', '--opponents', id, '--preset', 'smoke', '--episodes', '1']);
      expect(r.code).toBe(1);
      expect(r.err).toContain('mcts-<N> (N = 1..9999999 simulations per move)');
    }
  });
});

describe('mage eval --memory', () => {
  type Summary = { metaEpisodes: number; perAttempt: { passAtK: { rate: number } }[] };
  type Metrics = { overall: Summary & { noteRecall?: number }; byOpponent: Record<string, Summary> };
  interface EvalJson {
    memory: string;
    metrics: Metrics;
    withoutMemory?: Metrics;
    memoryBenefit?: { versus: string; pairs: number; passAtK: { mean: number; low: number; high: number }[] };
    withForeignNotes?: Metrics;
    notesBenefit?: {
      versus: string;
      donor?: string;
      pairs: number;
      passAtK: { mean: number }[];
      swaps: { replaced: number; sameText: number };
      whereNotesDiffer?: { pairs: number };
    };
    identificationCeiling?: number;
    policy: string;
    code: { commit: string | null; dirty: boolean | null; packages: Record<string, string> };
    machine: { cpu: string; runtime?: Record<string, string> };
  }
  const argv = (...extra: string[]) => [
    'eval',
    '--preset',
    'smoke',
    '--opponents',
    'random,pattern-centre-first',
    '--episodes',
    '4',
    '--json',
    ...extra,
  ];

  it('also plays the same tasks with no memory and reports the paired memory benefit', async () => {
    const r = await runJson<EvalJson>(argv('--memory', 'history'));
    expect(r.memory).toBe('history');
    expect(r.memoryBenefit?.versus).toBe('none');
    expect(r.memoryBenefit?.pairs).toBe(8);
    const rates = (m: Metrics) => m.overall.perAttempt.map((a) => a.passAtK.rate);
    const withMemory = rates(r.metrics);
    const without = rates(r.withoutMemory as Metrics);
    r.memoryBenefit?.passAtK.forEach((m, k) => {
      expect(m.mean).toBeCloseTo(withMemory[k]! - without[k]!, 12);
      expect(m.low).toBeLessThanOrEqual(m.mean);
      expect(m.high).toBeGreaterThanOrEqual(m.mean);
    });
    // Of the two opponents only the pattern player can be identified: its no-memory losses by attempt 3
    // over all meta-episodes.
    const pattern = (r.withoutMemory as Metrics).byOpponent['pattern-centre-first']!;
    const lost = pattern.metaEpisodes * (1 - pattern.perAttempt[2]!.passAtK.rate);
    expect(r.identificationCeiling).toBeCloseTo(lost / 8, 12);
  }, 60_000);

  it('with --foreign-notes also plays the tasks with notes from other meta-episodes and pairs own against foreign', async () => {
    const r = await runJson<EvalJson>(argv('--foreign-notes', '--no-memory-baseline'));
    expect(r.withoutMemory).toBeUndefined();
    expect(r.notesBenefit?.versus).toBe('foreign-notes');
    expect(r.notesBenefit?.pairs).toBe(8);
    const rates = (m: Metrics) => m.overall.perAttempt.map((a) => a.passAtK.rate);
    const own = rates(r.metrics);
    const foreign = rates(r.withForeignNotes as Metrics);
    // Attempt 1 has no notes yet: the same play either way.
    expect(foreign[0]).toBe(own[0]);
    // The teacher's factual notes state every fact of their attempt.
    expect(r.metrics.overall.noteRecall).toBe(1);
    r.notesBenefit?.passAtK.forEach((m, k) => {
      expect(m.mean).toBeCloseTo(own[k]! - foreign[k]!, 12);
    });
    // Every note of an unfinished meta-episode has a donor; the teacher's notes name their own games' moves.
    const swaps = r.notesBenefit?.swaps;
    expect(swaps?.replaced).toBeGreaterThan(0);
    expect(swaps?.sameText).toBeLessThanOrEqual(swaps?.replaced ?? 0);
    expect(r.notesBenefit?.whereNotesDiffer?.pairs).toBeGreaterThan(0);
    expect(r.notesBenefit?.whereNotesDiffer?.pairs).toBeLessThanOrEqual(8);
    const text = await runCaptured(
      argv('--foreign-notes', '--no-memory-baseline').filter((a) => a !== '--json'),
    );
    expect(text.out).toMatch(
      /foreign notes: \d+ of \d+ swapped notes \(\d+\.\d%\) read word for word.*over the \d+ meta-episodes with a swapped note that differs: pass@1/,
    );
    const none = await runCaptured(argv('--memory', 'none', '--foreign-notes'));
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/does not show; use reflection or reflection\+history/);
  }, 60_000);

  it("with --note-donor takes the foreign notes from another policy's play of the same tasks", async () => {
    const r = await runJson<EvalJson>(
      argv('--foreign-notes', '--note-donor', 'teacher', '--no-memory-baseline'),
    );
    expect(r.notesBenefit?.versus).toBe('foreign-notes');
    expect(r.notesBenefit?.donor).toBe('teacher');
    expect(r.notesBenefit?.pairs).toBe(8);
    expect(r.notesBenefit?.swaps.replaced).toBeGreaterThan(0);
    const text = await runCaptured(
      argv('--foreign-notes', '--note-donor', 'teacher', '--no-memory-baseline').filter(
        (a) => a !== '--json',
      ),
    );
    expect(text.out).toContain('each earlier note taken from another meta-episode played by teacher:');
    const alone = await runCaptured(argv('--note-donor', 'teacher'));
    expect(alone.code).toBe(1);
    expect(alone.err).toContain('--note-donor gives the foreign notes: it needs --foreign-notes');
    const missing = join(tmp.path, 'no-such-donor');
    const bad = await runCaptured(argv('--foreign-notes', '--note-donor', missing));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`--note-donor '${missing}': no such directory`);
  }, 60_000);

  it('prints how much of each attempt the notes state', async () => {
    const r = await runCaptured(argv('--no-memory-baseline').filter((a) => a !== '--json'));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /notes \(\d+\): state 100\.0% of their attempt's facts \(events and reveal\), \d+\.\d% cut/,
    );
    expect(r.out).toMatch(/\ncode: commit [0-9a-f]{7}( \(dirty\))?; machine: .+, Node v/);
    // The teacher never plays an invalid move: no repeats line.
    expect(r.out).not.toMatch(/refused move/);
  }, 60_000);

  it('skips the baseline with --no-memory-baseline or with no memory, and names the kinds on a bad one', async () => {
    const skipped = await runJson<EvalJson>(argv('--no-memory-baseline'));
    expect(skipped.memory).toBe('reflection');
    // The code that evaluated (this checkout's commit and the packages' versions) and the machine.
    expect(skipped.policy).toBe('teacher');
    expect(skipped.code.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof skipped.code.dirty).toBe('boolean');
    expect(skipped.code.packages).toMatchObject({
      '@mage-rl/core': expect.any(String),
      '@mage-rl/trainer': expect.any(String),
    });
    expect(skipped.machine.runtime).toHaveProperty('onnxruntime-node');
    expect(skipped.withoutMemory).toBeUndefined();
    const none = await runJson<EvalJson>(argv('--memory', 'none'));
    expect(none.memoryBenefit).toBeUndefined();
    const bad = await runCaptured(argv('--memory', 'notes'));
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/--memory.*reflection/);
  }, 60_000);

  it("prints each attempt's mean return in the game's unit (Kuhn Poker: chips per hand) beside pass@k", async () => {
    const kuhn = ['eval', '--env', 'kuhn-poker', '--preset', 'smoke', '--opponents', 'aggressive'];
    const args = [...kuhn, '--episodes', '4', '--attempts', '2'];
    const json = await runJson<{
      returnUnit?: { unit: string; rewardPerReturn: number };
      metrics: { overall: { perAttempt: { meanReturn: number }[] } };
    }>([...args, '--json']);
    expect(json.returnUnit?.unit).toBe('chips per hand');
    const per = json.returnUnit?.rewardPerReturn ?? 0;
    expect(per).toBeGreaterThan(0);
    const r = await runCaptured(args);
    expect(r.code).toBe(0);
    expect(r.out).toContain('chips per hand, attempt 1 → 2');
    const chips = json.metrics.overall.perAttempt.map((a) => (a.meanReturn / per).toFixed(3)).join(' → ');
    expect(r.out).toMatch(new RegExp(`overall .* ${chips.replace(/[.]/g, '\\.')}\\n`));
    expect(r.out).toMatch(/memory benefit .*; chips per hand by attempt [+−]\d\.\d{3} → [+−]\d\.\d{3}/);
    // Tic-Tac-Toe names no return unit: no column.
    const ttt = await runJson<{ returnUnit?: unknown }>(argv('--no-memory-baseline'));
    expect(ttt.returnUnit).toBeUndefined();
  }, 60_000);
});
