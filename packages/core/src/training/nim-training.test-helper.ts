/**
 * Shared setup of the training tests (and the crash-test child script): Nim against a random opponent,
 * a minimal memory whose play prompt is just the pile (so the tabular learner's key is the state), an
 * advantage function (attempt return centred per group) and a clipped policy-gradient token loss — all
 * written here because core cannot import `@mage-rl/reflection` or `@mage-rl/gigpo`.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryV1, RowRecord, TokenLossFn } from '@mage-rl/spec';
import { at, CheckpointError } from '@mage-rl/spec';
import { writeFileAtomic } from '../io';
import { createNimEnv, type NimAction, type NimState, nimGame } from '../testing/nim';
import { randomLegalOpponent } from '../testing/scripted';
import { createTabularLearner, type TabularLearner } from '../testing/tabular-learner';
import type { TrainingOptions, TrainingRolloutOptions } from './options';

export const NIM_CANDIDATES = [
  '<action>1</action>',
  '<action>2</action>',
  '<remark>try the other move</remark>',
];

const REMARK = /<remark>([\s\S]*?)<\/remark>/;

/** Play prompt = the observation only; reflect prompt = a fixed line. */
export function pileMemory(): MemoryV1 {
  return {
    specificationVersion: 'v1',
    id: 'pile',
    reflects: true,
    createSlot: () => ({
      playMessages: (view) => [{ role: 'user', content: view.observation.text }],
      reflectMessages: () => [{ role: 'user', content: 'reflect: answer <remark>note</remark>' }],
      parseReflection: (text) => {
        const m = REMARK.exec(text);
        return m ? { note: (m[1] ?? '').trim(), valid: true } : { note: '', valid: false };
      },
      attemptEnded: () => undefined,
    }),
  };
}

/** Row score = its attempt's return (play rows; −0.5 more when invalid), centred per group. */
export function centredReturns(rows: readonly RowRecord[]): number[] {
  const attemptReturn = new Map<string, number>();
  for (const r of rows) {
    if (r.phase !== 'play') continue;
    const key = `${r.slot}#${r.attempt}`;
    attemptReturn.set(key, (attemptReturn.get(key) ?? 0) + r.reward);
  }
  const scored = rows.map((r) => ({
    group: r.group,
    score: r.phase === 'play' ? (attemptReturn.get(`${r.slot}#${r.attempt}`) ?? 0) - (r.valid ? 0 : 0.5) : 0,
  }));
  const sum = new Map<string, { s: number; n: number }>();
  for (const { group, score } of scored) {
    const g = sum.get(group) ?? { s: 0, n: 0 };
    g.s += score;
    g.n++;
    sum.set(group, g);
  }
  return scored.map(({ group, score }) => {
    const g = sum.get(group);
    if (!g) throw new Error(`centredReturns: no sum for group ${group}`);
    return score - g.s / g.n;
  });
}

/** PPO-style clipped policy gradient, token-mean, with the k3 KL to the reference when given. */
export function clippedPgLoss(options: { clip?: number; klCoef?: number } = {}): TokenLossFn {
  const clip = options.clip ?? 0.2;
  const klCoef = options.klCoef ?? 0;
  return ({ logprobs, oldLogprobs, advantages, refLogprobs }) => {
    const n = logprobs.length;
    const weights = new Float32Array(n);
    let loss = 0;
    let clipped = 0;
    let approxKl = 0;
    let refKl = 0;
    for (const [j, lp] of logprobs.entries()) {
      const old = at(oldLogprobs, j);
      const ratio = Math.exp(lp - old);
      const a = at(advantages, j);
      const isClipped = (a > 0 && ratio > 1 + clip) || (a < 0 && ratio < 1 - clip);
      if (isClipped) clipped++;
      const pg = -a * (isClipped ? Math.min(Math.max(ratio, 1 - clip), 1 + clip) : ratio);
      let w = isClipped ? 0 : a * ratio;
      approxKl += old - lp;
      if (refLogprobs && klCoef > 0) {
        const d = at(refLogprobs, j) - lp;
        refKl += Math.exp(d) - d - 1;
        loss += klCoef * (Math.exp(d) - d - 1);
        w -= klCoef * (1 - Math.exp(d));
      }
      loss += pg;
      weights[j] = w / n;
    }
    return {
      weights,
      loss: loss / Math.max(1, n),
      stats: {
        clipFraction: clipped / Math.max(1, n),
        approxKl: approxKl / Math.max(1, n),
        refKl: refKl / Math.max(1, n),
      },
    };
  };
}

export function nimLearner(seed: number | string = 1, lr = 0.1): TabularLearner {
  return createTabularLearner({ candidates: NIM_CANDIDATES, seed, lr });
}

/** Options to change in `nimTrainingOptions`: the groups are merged into its own, the rest replaced. */
export type NimTrainingOverrides = Omit<Partial<TrainingOptions<NimState, NimAction>>, 'rollout'> & {
  readonly rollout?: Partial<TrainingRolloutOptions>;
};

/** Training options on Nim (first seat, random opponent), ready for `runTraining`. */
export function nimTrainingOptions(
  learner: TabularLearner,
  overrides: NimTrainingOverrides = {},
): TrainingOptions<NimState, NimAction> {
  const { rollout, update, ...rest } = overrides;
  return {
    env: createNimEnv(),
    learner,
    memory: pileMemory(),
    opponents: ['random'],
    makeOpponent: (id) => randomLegalOpponent(nimGame, id),
    advantages: centredReturns,
    loss: clippedPgLoss(),
    seed: 7,
    iterations: 4,
    rollout: { groups: 4, groupSize: 4, attempts: 2, style: 'compact', ...rollout },
    update: { entropyCoef: 0.001, ...update },
    ...rest,
  };
}

/**
 * Wraps a learner so every checkpoint also holds a deterministic ballast file (checked on load): saves
 * take long enough that a random kill often lands inside one.
 */
export function withBallast(learner: TabularLearner, bytes = 2 << 20): TabularLearner {
  const ballast = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) ballast[i] = (i * 2654435761) >>> 24;
  return Object.assign(Object.create(learner) as TabularLearner, {
    async save(dir: string) {
      await learner.save(dir);
      await writeFileAtomic(join(dir, 'ballast.bin'), ballast);
    },
    async load(dir: string) {
      const data = await readFile(join(dir, 'ballast.bin')).catch((error: unknown) => {
        throw new CheckpointError(`${dir}: ballast.bin is missing`, { cause: error });
      });
      if (data.length !== bytes || data.some((b, i) => b !== ballast[i])) {
        throw new CheckpointError(`${dir}: ballast.bin is corrupt`);
      }
      await learner.load(dir);
    },
  });
}

/** The run the crash test kills and resumes (child script) and runs uninterrupted (in-process). */
export function crashRunOptions(
  runDir: string,
  learner: TabularLearner,
): TrainingOptions<NimState, NimAction> {
  return nimTrainingOptions(learner, {
    iterations: 24,
    rollout: { groups: 4, groupSize: 4, attempts: 2 },
    update: { miniBatchRows: 16 },
    runDir,
    resume: true,
    checkpoints: { every: 1, keep: 3 },
    evaluation: { every: 6, episodes: 4, inDomain: { opponents: ['random'] } },
  });
}
