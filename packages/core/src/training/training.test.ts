import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue, LearnerInputRowV1, LearnerRowV1, LearnerV1, TokenLossFn } from '@mage-rl/spec';
import { AbortedError, ConfigError, InvalidArgumentError, NumericInstabilityError } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import { scriptedPolicy } from '../testing/scripted';
import { createTabularLearner } from '../testing/tabular-learner';
import type { MetricsLineV1, TrainingEvent } from './events';
import { iterateTraining, runTraining } from './iterate-training';
import { clippedPgLoss, NIM_CANDIDATES, nimLearner, nimTrainingOptions } from './nim-training.test-helper';
import { resolveTrainingOptions, trainingConfigOf } from './options';
import { readCheckpointState } from './run-dir';

const tempDir = () => mkdtemp(join(tmpdir(), 'mage-train-'));

async function collect(options: Parameters<typeof iterateTraining>[0]): Promise<TrainingEvent[]> {
  const events: TrainingEvent[] = [];
  for await (const e of iterateTraining(options)) events.push(e);
  return events;
}

async function metricsLines(runDir: string): Promise<MetricsLineV1[]> {
  const text = await readFile(join(runDir, 'metrics.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as MetricsLineV1);
}

/** metrics.jsonl without wall-clock fields (`timing`), for comparing runs. */
async function deterministicMetrics(runDir: string): Promise<string[]> {
  return (await metricsLines(runDir)).map((l) => {
    const { timing: _timing, ...rest } = l;
    return JSON.stringify(rest);
  });
}

/** `learner` with the rows of every update request recorded in `requests`. */
function recordingUpdates(learner: LearnerV1): { spy: LearnerV1; requests: LearnerInputRowV1[][] } {
  const requests: LearnerInputRowV1[][] = [];
  const spy: LearnerV1 = {
    ...learner,
    policy: learner.policy,
    update: (request) => {
      requests.push([...request.rows]);
      return learner.update(request);
    },
  };
  return { spy, requests };
}

describe('iterateTraining', () => {
  it('yields typed events in loop order and varies tasks per iteration', async () => {
    const events = await collect(
      nimTrainingOptions(nimLearner(), {
        iterations: 3,
        evaluation: {
          every: 2,
          episodes: 4,
          inDomain: { opponents: ['random'] },
          outOfDomain: { opponents: ['first-legal'] },
        },
        makeOpponent: (id) => ({
          specificationVersion: 'v1',
          id,
          act: (state, { rng }) => (id === 'first-legal' || state.stones < 2 ? 1 : rng.pick([1, 2] as const)),
        }),
      }),
    );
    expect(
      events.map((e) =>
        e.type === 'eval-end' || e.type === 'iteration-start' ? `${e.type}:${e.iteration}` : e.type,
      ),
    ).toEqual([
      'run-start',
      'iteration-start:0',
      'rollout-end',
      'update-end',
      'iteration-start:1',
      'rollout-end',
      'update-end',
      'eval-end:1',
      'iteration-start:2',
      'rollout-end',
      'update-end',
      'eval-end:2',
      'run-end',
    ]);
    const rollouts = events.filter((e) => e.type === 'rollout-end');
    const seeds = rollouts.map((r) => r.batch.groups.map((g) => g.task.seed).join(','));
    expect(new Set(seeds).size).toBe(3);
    expect(rollouts.map((r) => r.batch.iteration)).toEqual([0, 1, 2]);
    for (const r of rollouts) {
      expect(r.trainableRows).toBe(r.rows);
      expect(r.metrics.overall.metaEpisodes).toBe(16);
      expect(r.metrics.overall.perAttempt).toHaveLength(2);
    }
    const update = events.find((e) => e.type === 'update-end');
    expect(update).toMatchObject({ skippedSteps: 0, steps: 1, skippedRows: 0 });
    if (update?.type !== 'update-end') throw new Error('no update');
    expect(update.tokens).toBe(update.trainedRows);
    expect(update.clipFraction).toBe(0);
    expect(update.entropy).toBeCloseTo(Math.log(3), 6);
    const evalEnd = events.find((e) => e.type === 'eval-end');
    if (evalEnd?.type !== 'eval-end') throw new Error('no eval');
    expect(Object.keys(evalEnd.inDomain?.byOpponent ?? {})).toEqual(['random']);
    expect(Object.keys(evalEnd.outOfDomain?.byOpponent ?? {})).toEqual(['first-legal']);
    expect(evalEnd.inDomain?.overall.metaEpisodes).toBe(4);
    expect(evalEnd.completed).toBe(2);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', iterations: 3, lastCheckpoint: null });
  });

  it('writes config.json, metrics.jsonl and pruned atomic checkpoints', async () => {
    const runDir = await tempDir();
    const learner = nimLearner();
    const events = await collect(
      nimTrainingOptions(learner, {
        iterations: 5,
        runDir,
        checkpoints: { every: 2, keep: 2 },
        evaluation: { every: 2, episodes: 2, inDomain: { opponents: ['random'] } },
        config: { method: 'test' },
      }),
    );
    const saved = events.filter((e) => e.type === 'checkpoint-saved');
    expect(saved.map((e) => e.iteration)).toEqual([1, 3, 4]);
    expect(saved[2]?.type === 'checkpoint-saved' && saved[2].pruned).toEqual(['iter-000001']);
    expect((await readdir(join(runDir, 'checkpoints'))).sort()).toEqual([
      'iter-000003',
      'iter-000004',
      'latest.json',
    ]);
    expect(JSON.parse(await readFile(join(runDir, 'checkpoints', 'latest.json'), 'utf8'))).toEqual({
      iteration: 4,
      dir: 'iter-000004',
    });
    const state = await readCheckpointState(join(runDir, 'checkpoints', 'iter-000004'));
    expect(state).toMatchObject({
      iteration: 4,
      nextIteration: 5,
      seed: 7,
      learnerId: 'tabular',
      memory: null,
    });
    const lines = await metricsLines(runDir);
    expect(lines.map((l) => `${l.type}:${l.iteration}`)).toEqual([
      'rollout:0',
      'update:0',
      'rollout:1',
      'update:1',
      'eval:1',
      'rollout:2',
      'update:2',
      'rollout:3',
      'update:3',
      'eval:3',
      'rollout:4',
      'update:4',
      'eval:4',
    ]);
    expect(state.metricsLines).toBe(lines.length);
    const config = JSON.parse(await readFile(join(runDir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({
      format: 'mage-rl/run-config@1',
      env: { id: 'nim' },
      learner: 'tabular',
      memory: 'pile',
      extra: { method: 'test' },
      training: { seed: 7, iterations: 5, groups: 4, groupSize: 4, attempts: 2, entropyCoef: 0.001 },
    });
    // The checkpoint holds the final weights.
    const copy = createTabularLearner({ candidates: NIM_CANDIDATES, seed: 99 });
    await copy.load(join(runDir, 'checkpoints', 'iter-000004'));
    for (const k of learner.keys())
      expect(Array.from(copy.probabilities(k))).toEqual(Array.from(learner.probabilities(k)));
    // A second fresh run into the same directory is refused.
    await expect(collect(nimTrainingOptions(nimLearner(), { runDir }))).rejects.toThrow(
      /already holds config.json, metrics.jsonl, checkpoints/,
    );
  });

  it('repairs a latest.json left one checkpoint behind by a kill, also when the run had finished', async () => {
    const runDir = await tempDir();
    const options = (learner: ReturnType<typeof nimLearner>) =>
      nimTrainingOptions(learner, { iterations: 3, runDir, checkpoints: { every: 1, keep: 3 } });
    await collect(options(nimLearner()));
    const latest = join(runDir, 'checkpoints', 'latest.json');
    // As if killed after renaming iter-000002 into place but before rewriting the pointer.
    await writeFile(latest, JSON.stringify({ iteration: 1, dir: 'iter-000001' }));
    const events = await collect({ ...options(nimLearner()), resume: true });
    expect(events.find((e) => e.type === 'run-start')).toMatchObject({ startIteration: 3 });
    expect(JSON.parse(await readFile(latest, 'utf8'))).toEqual({ iteration: 2, dir: 'iter-000002' });
  });

  it('resumes from the latest checkpoint and reproduces the uninterrupted run exactly', async () => {
    const options = (runDir: string, learner = nimLearner()) =>
      nimTrainingOptions(learner, {
        iterations: 6,
        runDir,
        checkpoints: { every: 2 },
        evaluation: { every: 3, atStart: true, episodes: 4, inDomain: { opponents: ['random'] } },
      });
    const full = await tempDir();
    const fullLearner = nimLearner();
    await runTraining(options(full, fullLearner));

    // Interrupted after iteration 4's rollout (checkpoint at iteration 3): the lines of iteration 4 are
    // on disk and must be dropped on resume.
    const cut = await tempDir();
    for await (const e of iterateTraining(options(cut))) {
      if (e.type === 'rollout-end' && e.iteration === 4) break;
    }
    expect((await metricsLines(cut)).at(-1)).toMatchObject({ type: 'rollout', iteration: 4 });
    const resumedLearner = nimLearner();
    const events = await collect({ ...options(cut, resumedLearner), resume: true });
    expect(events[0]).toMatchObject({ type: 'run-start', startIteration: 4, resumedFrom: { iteration: 3 } });
    expect(await deterministicMetrics(cut)).toEqual(await deterministicMetrics(full));
    expect(resumedLearner.keys()).toEqual(fullLearner.keys());
    for (const k of fullLearner.keys()) {
      expect(Array.from(resumedLearner.probabilities(k))).toEqual(Array.from(fullLearner.probabilities(k)));
    }
    // Resuming a finished run does nothing more.
    const again = await collect({ ...options(cut), resume: true });
    expect(again.map((e) => e.type)).toEqual(['run-start', 'run-end']);
    // A resume with another configuration is refused, naming what changed.
    const five = (o: ReturnType<typeof options>) => ({
      ...o,
      rollout: { ...o.rollout, groups: 5 },
      resume: true,
    });
    const changed = collect(five(options(cut)));
    await expect(changed).rejects.toBeInstanceOf(ConfigError);
    await expect(collect(five(options(cut)))).rejects.toThrow(/training\.groups/);
  });

  it('starts fresh when resuming a run without checkpoints (killed early)', async () => {
    const runDir = await tempDir();
    await writeFile(join(runDir, 'metrics.jsonl'), '{"type":"rollout","iteration":0}\n{"type":"upd');
    const events = await collect({
      ...nimTrainingOptions(nimLearner(), { iterations: 1, runDir }),
      resume: true,
    });
    expect(events[0]).toMatchObject({ startIteration: 0, resumedFrom: null });
    expect((await metricsLines(runDir)).map((l) => l.type)).toEqual(['rollout', 'update']);
  });

  it('logs skipped NaN steps and stops after 3 in a row without checkpointing the failed update', async () => {
    const runDir = await tempDir();
    const good = clippedPgLoss();
    let iteration = -1;
    let callsThisIteration = 0;
    // Iteration 0: the second mini-batch is NaN (skipped). Iteration 1: fine. Iteration 2: NaN throughout.
    const loss: TokenLossFn = (input) => {
      callsThisIteration++;
      const out = good(input);
      const nan = (iteration === 0 && callsThisIteration === 2) || iteration === 2;
      return nan ? { ...out, weights: out.weights.map(() => Number.NaN), loss: Number.NaN } : out;
    };
    const learner = nimLearner();
    const events: TrainingEvent[] = [];
    const error = await runTraining({
      ...nimTrainingOptions(learner, {
        iterations: 4,
        runDir,
        checkpoints: { every: 1 },
        loss,
        update: { miniBatchRows: 8 },
      }),
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'iteration-start') {
          iteration = e.iteration;
          callsThisIteration = 0;
        }
      },
    }).catch((e: unknown) => e);
    const updates = events.filter((e) => e.type === 'update-end');
    expect(updates.map((u) => u.skippedSteps)).toEqual([1, 0]);
    expect(updates[0]?.steps).toBeGreaterThanOrEqual(3);
    expect(Number.isFinite(updates[0]?.type === 'update-end' ? updates[0].loss : Number.NaN)).toBe(true);
    expect(error).toBeInstanceOf(NumericInstabilityError);
    expect((error as Error).message).toMatch(/iteration 2/);
    expect((error as Error).message).toContain(join(runDir, 'checkpoints', 'iter-000001'));
    expect(events.filter((e) => e.type === 'checkpoint-saved').map((e) => e.iteration)).toEqual([0, 1]);
    expect((await readdir(join(runDir, 'checkpoints'))).sort()).toEqual([
      'iter-000000',
      'iter-000001',
      'latest.json',
    ]);
    expect(JSON.parse(await readFile(join(runDir, 'checkpoints', 'latest.json'), 'utf8')).dir).toBe(
      'iter-000001',
    );
    expect((await metricsLines(runDir)).some((l) => l.type === 'update' && l.iteration === 2)).toBe(false);
    // The last good checkpoint loads and holds exactly the weights the failed steps left untouched.
    const restored = nimLearner();
    await restored.load(join(runDir, 'checkpoints', 'iter-000001'));
    for (const k of learner.keys())
      expect(Array.from(restored.probabilities(k))).toEqual(Array.from(learner.probabilities(k)));
    // And the run resumes from it with a healthy loss.
    const resumed = await collect({
      ...nimTrainingOptions(nimLearner(), {
        iterations: 4,
        runDir,
        checkpoints: { every: 1 },
        update: { miniBatchRows: 8 },
      }),
      resume: true,
    });
    expect(resumed[0]).toMatchObject({ startIteration: 2 });
    expect(resumed.at(-1)).toMatchObject({ type: 'run-end', iterations: 4 });
  });

  it('skips rows without response tokens (text-only policies)', async () => {
    const inner = nimLearner();
    let updates = 0;
    const textOnly: LearnerV1 = {
      ...inner,
      policy: scriptedPolicy((r) => (r.phase === 'play' ? '<action>1</action>' : '<remark>x</remark>')),
      update: async (req) => {
        updates++;
        return inner.update(req);
      },
    };
    const events = await collect(
      nimTrainingOptions(createTabularLearner({ candidates: NIM_CANDIDATES, seed: 1 }), {
        learner: textOnly,
        iterations: 1,
      }),
    );
    const rollout = events.find((e) => e.type === 'rollout-end');
    const update = events.find((e) => e.type === 'update-end');
    expect(rollout).toMatchObject({ trainableRows: 0 });
    expect(update).toMatchObject({ trainedRows: 0, steps: 0, kl: null });
    expect(update?.type === 'update-end' && update.skippedRows).toBe(
      rollout?.type === 'rollout-end' && rollout.rows,
    );
    expect(updates).toBe(0);
  });

  it('passes reference log-probs to the loss and reports the KL', async () => {
    const seen: LearnerRowV1[][] = [];
    const reference = {
      logprobs: async (rows: readonly Pick<LearnerRowV1, 'promptTokens' | 'responseTokens'>[]) => {
        seen.push(rows as LearnerRowV1[]);
        return rows.map((r) => Float32Array.from(r.responseTokens, () => Math.log(0.5)));
      },
    };
    let refSeen: Float32Array | undefined;
    const base = clippedPgLoss({ klCoef: 0.1 });
    const events = await collect(
      nimTrainingOptions(nimLearner(), {
        iterations: 1,
        reference,
        loss: (input) => {
          refSeen = input.refLogprobs;
          return base(input);
        },
      }),
    );
    expect(seen).toHaveLength(1);
    expect(refSeen?.every((x) => Math.abs(x - Math.log(0.5)) < 1e-6)).toBe(true);
    const update = events.find((e) => e.type === 'update-end');
    // k3 between uniform-over-3 and 0.5: exp(d) − d − 1 with d = log(0.5) − log(1/3).
    const d = Math.log(0.5) - Math.log(1 / 3);
    expect(update?.type === 'update-end' && update.kl).toBeCloseTo(Math.exp(d) - d - 1, 5);
  });

  it('gives packed-capable learners packed rows; the run equals the one with packing off', async () => {
    const run = async (packRows: boolean) => {
      const runDir = await tempDir();
      const learner = nimLearner();
      const { spy, requests } = recordingUpdates(learner);
      const reference = nimLearner('ref');
      await runTraining(
        nimTrainingOptions(learner, {
          learner: spy,
          iterations: 2,
          runDir,
          reference,
          update: { packRows },
          loss: clippedPgLoss({ klCoef: 0.1 }),
        }),
      );
      const probs = learner.keys().flatMap((k) => Array.from(learner.probabilities(k)));
      return { requests, metrics: await deterministicMetrics(runDir), probs };
    };
    const packed = await run(true);
    const plain = await run(false);
    expect(packed.requests.flat().every((r) => typeof r === 'object' && r !== null && 'spans' in r)).toBe(
      true,
    );
    expect(plain.requests.flat().some((r) => typeof r === 'object' && r !== null && 'spans' in r)).toBe(
      false,
    );
    expect(packed.metrics).toEqual(plain.metrics);
    expect(packed.probs.length).toBeGreaterThan(0);
    expect(packed.probs).toEqual(plain.probs);
  });

  it('hands a learner with referenceAhead the reference to call, not rows with its log-probs; the run is the same', async () => {
    const run = async (referenceAhead: boolean) => {
      const runDir = await tempDir();
      const learner = nimLearner();
      const sent: LearnerInputRowV1[][] = [];
      const ahead: LearnerV1 = {
        ...learner,
        policy: learner.policy,
        ...(referenceAhead ? { referenceAhead } : {}),
        async update(request) {
          sent.push([...request.rows]);
          const score = request.referenceLogprobs;
          if (score === undefined) return learner.update(request);
          const ref = await score(request.rows);
          const rows = (request.rows as LearnerRowV1[]).map((r, i) => ({
            ...r,
            refLogprobs: Array.from(ref[i] ?? []),
          }));
          return learner.update({ ...request, rows });
        },
      };
      await runTraining(
        nimTrainingOptions(learner, {
          learner: ahead,
          iterations: 2,
          runDir,
          reference: nimLearner('ref'),
          update: { packRows: false },
          loss: clippedPgLoss({ klCoef: 0.1 }),
        }),
      );
      const withRef = sent.flat().filter((r) => 'refLogprobs' in r).length;
      return { withRef, rows: sent.flat().length, metrics: await deterministicMetrics(runDir) };
    };
    const eager = await run(false);
    const ahead = await run(true);
    expect(eager.withRef).toBe(eager.rows);
    expect(ahead.rows).toBeGreaterThan(0);
    expect(ahead.withRef).toBe(0);
    expect(ahead.metrics).toEqual(eager.metrics);
  });

  it('adds refused-action rows with update.refusedRetry, scored at the current weights', async () => {
    const run = async (refusedRetry: number) => {
      const learner = nimLearner();
      const { spy, requests } = recordingUpdates(learner);
      const events = await collect(
        nimTrainingOptions(learner, {
          learner: spy,
          iterations: 1,
          update: { packRows: false, refusedRetry },
        }),
      );
      const update = events.find((e) => e.type === 'update-end');
      // Packing is off: every row is a plain one.
      const rows = requests.flat() as LearnerRowV1[];
      return { rows, update: update?.type === 'update-end' ? update : undefined };
    };
    const off = await run(0);
    const on = await run(2);
    const extra = on.update?.stats.refusedRetryRows ?? 0;
    expect(off.update?.stats.refusedRetryRows).toBeUndefined();
    expect(extra).toBeGreaterThan(0);
    expect(on.rows).toHaveLength(off.rows.length + extra);
    expect(on.update?.trainedRows).toBe(off.update?.trainedRows);
    // The same rollout: the extra rows come last, each the refused move ('2' at a pile of 1) with a
    // negative advantage and its log-probs under the weights before the update.
    expect(on.rows.slice(0, off.rows.length)).toEqual(off.rows);
    for (const row of on.rows.slice(off.rows.length)) {
      expect(row.advantage).toBeLessThan(0);
      expect(row.oldLogprobs).toHaveLength(row.responseTokens.length);
      expect(row.oldLogprobs.every((x) => Number.isFinite(x) && x < 0)).toBe(true);
    }
  });

  it('saves memory state into checkpoints and restores it on resume', async () => {
    const runDir = await tempDir();
    let restored: JsonValue | undefined;
    let counter = 0;
    const memoryState = {
      save: () => ({ counter: ++counter }),
      restore: (s: JsonValue) => {
        restored = s;
      },
    };
    await collect(
      nimTrainingOptions(nimLearner(), { iterations: 2, runDir, checkpoints: { every: 1 }, memoryState }),
    );
    expect((await readCheckpointState(join(runDir, 'checkpoints', 'iter-000001'))).memory).toEqual({
      counter: 2,
    });
    await collect({
      ...nimTrainingOptions(nimLearner(), { iterations: 3, runDir, checkpoints: { every: 1 }, memoryState }),
      resume: true,
    });
    expect(restored).toEqual({ counter: 2 });
  });

  it('validates options with the path, the bad value and the allowed range', async () => {
    const opts = nimTrainingOptions(nimLearner());
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ iterations: 0 }, 'iterations', /got 0; allowed: an integer >= 1/],
      [{ rollout: { ...opts.rollout, groups: 2.5 } }, 'rollout.groups', /got 2\.5; allowed: an integer >= 1/],
      [{ rollout: { ...opts.rollout, groupSize: 0 } }, 'rollout.groupSize', /'rollout\.groupSize': got 0/],
      [
        { update: { entropyCoef: Number.NaN } },
        'update.entropyCoef',
        /got NaN; allowed: a number in \[0, 1\]/,
      ],
      [{ update: { packRows: 1 } }, 'update.packRows', /got 1; allowed: true or false/],
      [{ checkpoints: { every: 0 } }, 'checkpoints.every', /got 0; allowed: an integer >= 1/],
      [
        { rollout: { groups: 4, seats: { mixed: 2 } } },
        'rollout.seats.mixed',
        /got 2; allowed: a number in \[0, 1\]/,
      ],
      [
        { rollout: { groups: 4, sampling: { topP: 0 } } },
        'rollout.sampling.topP',
        /got 0; allowed: a number in \(0, 1\]/,
      ],
      [{ evaluation: { every: 0 } }, 'evaluation.every', /got 0/],
      [{ evaluation: { every: 1, inDomain: {} } }, 'evaluation.inDomain.opponents', /non-empty list/],
      [{ rollout: { groups: 4, context: 'paper' } }, 'rollout.context', /'turn' or 'transcript'/],
      [{ rollout: undefined }, 'rollout', /got nothing; allowed: an object \{ groups/],
      [{ iteratons: 3 }, 'iteratons', /Unknown training option.*known options: env/],
      [{ groups: 4 }, 'groups', /Unknown training option\(s\) 'groups'/],
      [
        { rollout: { groups: 4, epochs: 2 } },
        'rollout.epochs',
        /'rollout\.epochs'; known options of 'rollout': groups, groupSize/,
      ],
      [
        { checkpoints: { keepCheckpoints: 2 } },
        'checkpoints.keepCheckpoints',
        /known options of 'checkpoints': every, keep/,
      ],
      [{ resume: true }, 'resume', /needs a runDir/],
      [{ loss: undefined }, 'loss', /TokenLossFn/],
    ];
    for (const [patch, path, message] of cases) {
      const error = await collect({ ...opts, ...patch } as typeof opts).catch((e: unknown) => e);
      expect(error, path).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).context.path, path).toBe(path);
      expect((error as ConfigError).message, path).toMatch(message);
    }
  });

  it('fills the defaults in one place, and runs the same given them resolved as validating them itself', async () => {
    const opts = nimTrainingOptions(nimLearner(), { iterations: 2 });
    const resolved = trainingConfigOf(opts);
    expect(resolveTrainingOptions(opts)).toEqual(resolved);
    expect(resolved).toMatchObject({ groupSize: 4, epochs: 1, checkpointEvery: 10, keepCheckpoints: 3 });
    const lines = async (resolvedByCaller: boolean) => {
      const options = nimTrainingOptions(nimLearner(), { iterations: 2 });
      const events: TrainingEvent[] = [];
      const run = resolvedByCaller
        ? iterateTraining(options, trainingConfigOf(options))
        : iterateTraining(options);
      for await (const e of run) events.push(e);
      return events
        .filter((e) => e.type === 'update-end')
        .map((e) => (e.type === 'update-end' ? e.loss : null));
    };
    expect(await lines(true)).toEqual(await lines(false));
  });

  it('rejects advantage functions that return the wrong number of values or NaN', async () => {
    const bad = collect(nimTrainingOptions(nimLearner(), { iterations: 1, advantages: () => [1, 2] }));
    await expect(bad).rejects.toBeInstanceOf(InvalidArgumentError);
    const nan = collect(
      nimTrainingOptions(nimLearner(), { iterations: 1, advantages: (rows) => rows.map(() => Number.NaN) }),
    );
    await expect(nan).rejects.toThrow(/returned NaN for row 0/);
  });

  it('stops with AbortedError when the signal fires', async () => {
    const controller = new AbortController();
    const events: TrainingEvent[] = [];
    const error = await runTraining({
      ...nimTrainingOptions(nimLearner(), { iterations: 5, signal: controller.signal }),
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'update-end' && e.iteration === 1) controller.abort();
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(events.filter((e) => e.type === 'update-end')).toHaveLength(2);
  });
});
