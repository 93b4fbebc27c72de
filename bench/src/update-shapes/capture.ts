/**
 * Captures one real update of a recipe: `tsx capture.ts <recipe id>` resolves the recipe's config as
 * `mage train` does, finds (or pretrains) its cached warm start, loads the learner and its KL reference
 * as the trainer does (`localLearners` in `@mage-rl/trainer`), and runs core's training loop for one
 * iteration without evaluation or run directory. The learner and the reference are wrapped: the
 * reference's `logprobs` call and the learner's `update` request (rows packed per meta-episode, with
 * their advantages and reference log-probs, the loss and its settings) are recorded as the trainer's
 * update phase made them, and the calls go through, so the trainer's own update is timed too. Writes
 * `capturePath(recipe)` (a `CapturedUpdate`) and prints one JSON line.
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  createRng,
  isPackedRow,
  iterateTraining,
  type LearnerInputRowV1,
  type LearnerUpdateRequest,
  type LearnerV1,
  type LogprobRowV1,
  type TrainingOptions,
} from '@mage-rl/core';
import { DEFAULT_KL_CLAMP } from '@mage-rl/gigpo';
import { loadModel } from '@mage-rl/learner';
import { trainingOptionsOf, useEnvPackage } from '@mage-rl/recipes';
import { memoryLimitsOfConfig, resolveWarmStart, trainConfigOf } from '@mage-rl/trainer/internals';
import {
  CACHE_DIR,
  type CapturedUpdate,
  capturePath,
  MICRO_BATCH_ROWS,
  MICRO_BATCH_TOKENS,
  RECIPES,
  REPO_ROOT,
} from './recipes';

const recipe = RECIPES.find((r) => r.id === process.argv[2]);
if (recipe === undefined) throw new Error(`capture.ts: unknown recipe '${process.argv[2]}'`);
const log = (line: string) => process.stderr.write(`update-shapes ${recipe.id}: ${line}\n`);

const { overrides } = await useEnvPackage(recipe.envPackage, recipe.overrides, REPO_ROOT);
const config = trainConfigOf({
  env: recipe.env,
  method: 'mage',
  preset: recipe.preset,
  seed: recipe.seed,
  overrides,
});
const warm = resolveWarmStart({
  env: config.env.id,
  preset: recipe.preset,
  seed: recipe.seed,
  cacheDir: CACHE_DIR,
  overrides,
  log,
});
const warmStart = await warm.ensure();

// As `localLearners` loads them for a local run.
const optimizer = {
  lr: config.ppo.lr,
  weightDecay: config.ppo.weightDecay,
  maxGradNorm: config.ppo.gradClip,
};
const memory = memoryLimitsOfConfig(config);
const temperature = config.rollout.temperature === 0 ? 1 : config.rollout.temperature;
const logprobs = temperature === 1 ? {} : { logprobTemperature: temperature };
const seed = `${recipe.seed}/learner`;
const learner = await loadModel(warmStart, { seed, optimizer, memory, ...logprobs });
if (config.ppo.klCoef <= 0) throw new Error(`capture.ts: recipe '${recipe.id}' has no KL reference`);
const reference = await loadModel(warmStart, {
  runner: 'local',
  lora: false,
  memory,
  inferenceOnly: true,
  ...logprobs,
});

let referenceMs = 0;
let updateMs = 0;
let request: LearnerUpdateRequest | undefined;
const referenceProxy: Pick<LearnerV1, 'logprobs' | 'packedRows'> = {
  ...(reference.packedRows ? { packedRows: reference.packedRows } : {}),
  async logprobs(rows: readonly LogprobRowV1[]) {
    const t = performance.now();
    const out = await reference.logprobs(rows);
    referenceMs += performance.now() - t;
    return out;
  },
};
const learnerProxy = new Proxy(learner, {
  get(target, key) {
    if (key === 'update') {
      return async (r: LearnerUpdateRequest) => {
        request = r;
        const t = performance.now();
        const result = await target.update(r);
        updateMs += performance.now() - t;
        return result;
      };
    }
    return Reflect.get(target, key, target);
  },
});

const training = trainingOptionsOf(config, { learner: learnerProxy, reference: referenceProxy });
const { evaluation: _evaluation, ...withoutEvaluation } = training;
const loop: TrainingOptions = { ...withoutEvaluation, iterations: 1 };
let rolloutSeconds = 0;
let update: { steps: number; tokens: number; loss: number | null; trainedRows: number } | undefined;
for await (const event of iterateTraining(loop)) {
  if (event.type === 'rollout-end') {
    rolloutSeconds = event.timing.seconds;
    log(`rollout ${rolloutSeconds.toFixed(1)} s, ${event.batch.rows.length} turn rows`);
  }
  if (event.type === 'update-end') update = event;
}
await learner.dispose();
await reference.dispose();
if (request === undefined || update === undefined)
  throw new Error('capture.ts: the iteration made no update');

const rows = request.rows.map((r: LearnerInputRowV1) => {
  if (!isPackedRow(r))
    throw new Error('capture.ts: the trainer passed plain rows; the bench expects packed ones');
  return {
    tokens: [...r.tokens],
    spans: r.spans.map((s) => {
      if (s.refLogprobs === undefined) throw new Error('capture.ts: a span without reference log-probs');
      return {
        start: s.start,
        length: s.length,
        oldLogprobs: Array.from(s.oldLogprobs),
        advantage: s.advantage,
        refLogprobs: Array.from(s.refLogprobs),
      };
    }),
  };
});

/**
 * The learner's mini-batches of step `step`, epoch `epoch`: its seeded shuffle of the rows, then runs
 * closed when the spans so far reach the next multiple of `miniBatchRows` (`miniBatches` in the learner).
 */
function miniBatchesOf(epoch: number, step: number): number[][] {
  const order = createRng(seed)
    .split(`update/${step}/${epoch}`)
    .shuffle(rows.map((_, i) => i));
  const perBatch = Math.max(1, request?.miniBatchRows ?? Number.POSITIVE_INFINITY);
  const out: number[][] = [];
  let open: number[] = [];
  let total = 0;
  for (const i of order) {
    open.push(i);
    total += Math.max(1, rows[i]?.spans.length ?? 1);
    if (total >= (out.length + 1) * perBatch) {
      out.push(open);
      open = [];
    }
  }
  if (open.length > 0) out.push(open);
  return out;
}
const epochs = request.epochs ?? 1;
const miniBatches: number[][][] = [];
for (let e = 0, step = 0; e < epochs; e++) {
  miniBatches.push(miniBatchesOf(e, step));
  step += miniBatches[e]?.length ?? 0;
}

const manifest = JSON.parse(await readFile(join(warmStart, 'mage-tiny.json'), 'utf8')) as {
  config: Record<string, unknown>;
};
const captured: CapturedUpdate = {
  recipe: recipe.id,
  command: recipe.command,
  warmStart,
  model: manifest.config,
  learner: {
    seed,
    optimizer,
    ...logprobs,
    memoryBudget: config.memory.budget,
    microBatchRows: MICRO_BATCH_ROWS,
    microBatchTokens: MICRO_BATCH_TOKENS,
  },
  request: {
    miniBatchRows: request.miniBatchRows ?? null,
    epochs,
    entropyCoef: request.entropyCoef ?? 0,
  },
  loss: {
    clip: config.ppo.clip,
    clipHigh: config.ppo.clip,
    dualClip: config.ppo.dualClip,
    klCoef: config.ppo.klCoef,
    klClamp: DEFAULT_KL_CLAMP,
    klUpperEdge: config.ppo.klUpperEdge,
    aggregation: config.ppo.aggregation,
  },
  rows,
  miniBatches,
  trainer: {
    rolloutSeconds,
    referenceMs,
    updateMs,
    steps: update.steps,
    tokens: update.tokens,
    loss: update.loss ?? Number.NaN,
    trainedRows: update.trainedRows,
  },
};
const path = capturePath(recipe.id);
await mkdir(dirname(path), { recursive: true });
await writeFile(path, JSON.stringify(captured));
const { rows: _rows, miniBatches: _mb, ...summary } = captured;
process.stdout.write(`${JSON.stringify({ path, packedRows: rows.length, ...summary })}\n`);
