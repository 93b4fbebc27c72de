/**
 * mage-tiny on disk: a directory with the model checkpoint (`model/`), the word-level tokenizer
 * (`tokenizer.json`, `tokenizer_config.json`) and `mage-tiny.json` (config, vocabulary provenance, the
 * warm-start record). `loadMageTiny` turns it back into a trainable `OnnxLearner`.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CheckpointError,
  type JsonObject,
  pathExists,
  readJsonChecked,
  writeFileAtomic,
  writeJsonAtomic,
} from '@mage-rl/core';
import { z } from 'zod';
import { checkCheckpointTensors, loadCheckpoint } from '../checkpoint';
import { createOnnxLearner, type MemoryLimits, type OnnxLearner, type OnnxLearnerOptions } from '../learner';
import type { LoraOptions } from '../lora';
import {
  createMageTinyConfig,
  defineModelConfig,
  type MageTinySize,
  type ModelConfig,
  type ModelConfigInput,
  paramSpecs,
} from '../model';
import type { AdamWOptions } from '../optim';
import {
  createWordLevelTokenizer,
  parseWordLevelTokenizer,
  type WordLevelTokenizer,
  wordLevelPieces,
  wordLevelTokenizerFiles,
} from '../tokenizer';

export const MAGE_TINY_FORMAT = 'mage-rl/mage-tiny@1';

export interface MageTinyManifest {
  readonly format: typeof MAGE_TINY_FORMAT;
  readonly config: ModelConfig;
  /** What produced the weights (the warm-start record), free-form JSON. */
  readonly warmStart: JsonObject;
}

/**
 * A word-level tokenizer holding every piece of `texts` (for mage-tiny: the compact grammar's words, the
 * warm-start prompts and responses). The vocabulary is sorted, so the order of `texts` does not matter.
 */
export function wordLevelTokenizerOf(texts: Iterable<string>): WordLevelTokenizer {
  const pieces = new Set<string>();
  for (const text of texts) for (const p of wordLevelPieces(text)) pieces.add(p);
  pieces.delete('\n'); // the tokenizer has its own newline token
  return createWordLevelTokenizer({ vocab: [...pieces].sort() });
}

export interface CreateMageTinyOptions {
  readonly seed?: number | string;
  readonly optimizer?: AdamWOptions;
  readonly runner?: 'worker' | 'local';
  /** Train LoRA adapters instead of all weights (rollouts on a server push them). */
  readonly lora?: LoraOptions;
  /** Session cache, prefix cache and generation chunk (default: the learner's, those of a 6 GiB budget). */
  readonly memory?: MemoryLimits;
  /** Width and depth of a fresh model (default mage-tiny's 128 × 4). */
  readonly size?: MageTinySize;
  /** Training runs of several sequences per row (`OnnxLearnerOptions.segmentRows`). */
  readonly segmentRows?: OnnxLearnerOptions['segmentRows'];
  /** Weights held once, by the runner; the learner cannot train (`OnnxLearnerOptions.inferenceOnly`). */
  readonly inferenceOnly?: boolean;
  /** The temperature of its log-probs (`OnnxLearnerOptions.logprobTemperature`). */
  readonly logprobTemperature?: number;
}

/** The `createOnnxLearner` options of `limits`. */
export function learnerMemoryOptions(limits: MemoryLimits) {
  return {
    maxSessionBytes: limits.sessionBytes,
    prefixCacheBytes: limits.prefixCacheBytes,
    maxGenerateRows: limits.generateRows,
  } as const;
}

/** A freshly initialised mage-tiny for `tokenizer`. */
export function createMageTiny(
  tokenizer: WordLevelTokenizer,
  options: CreateMageTinyOptions = {},
): Promise<OnnxLearner> {
  const config = createMageTinyConfig(tokenizer.vocabSize, {
    bosTokenId: tokenizer.encode('<bos>')[0] ?? 2,
    eosTokenId: tokenizer.eosTokenIds[0] ?? 3,
    ...(options.size ? { size: options.size } : {}),
  });
  return mageTinyLearner(config, tokenizer, options);
}

/** The learner of a mage-tiny model: fresh weights, or `weights` when given. */
function mageTinyLearner(
  config: ModelConfig,
  tokenizer: WordLevelTokenizer,
  options: CreateMageTinyOptions,
  weights?: ReadonlyMap<string, Float32Array>,
): Promise<OnnxLearner> {
  return createOnnxLearner({
    id: 'mage-tiny',
    config,
    tokenizer,
    ...(weights ? { weights } : {}),
    seed: options.seed ?? 0,
    ...(options.optimizer ? { optimizer: options.optimizer } : {}),
    ...(options.runner ? { runner: options.runner } : {}),
    ...(options.lora ? { lora: options.lora } : {}),
    ...(options.memory ? learnerMemoryOptions(options.memory) : {}),
    ...(options.segmentRows === undefined ? {} : { segmentRows: options.segmentRows }),
    ...(options.inferenceOnly === undefined ? {} : { inferenceOnly: options.inferenceOnly }),
    ...(options.logprobTemperature === undefined ? {} : { logprobTemperature: options.logprobTemperature }),
    defaultMaxTokens: 64,
  });
}

/** Writes the learner's checkpoint, the tokenizer files and the manifest into `dir`. */
export async function saveMageTiny(
  dir: string,
  learner: OnnxLearner,
  tokenizer: WordLevelTokenizer,
  warmStart: JsonObject,
): Promise<void> {
  await learner.save(join(dir, 'model'));
  for (const [name, text] of Object.entries(wordLevelTokenizerFiles(tokenizer))) {
    await writeFileAtomic(join(dir, name), text);
  }
  const manifest: MageTinyManifest = { format: MAGE_TINY_FORMAT, config: learner.config, warmStart };
  await writeJsonAtomic(join(dir, 'mage-tiny.json'), manifest);
}

const manifestSchema = z
  .object({
    format: z.literal(MAGE_TINY_FORMAT),
    config: z.record(z.string(), z.unknown()),
    warmStart: z.record(z.string(), z.json()),
  })
  .loose();

const REBUILD =
  'delete the directory and run `mage pretrain` again (a cached warm start is rebuilt by `mage train`)';

export async function readMageTinyManifest(dir: string): Promise<MageTinyManifest> {
  const path = join(dir, 'mage-tiny.json');
  if (!(await pathExists(path))) {
    throw new CheckpointError(
      `'${dir}' holds no mage-tiny model (no mage-tiny.json); run \`mage pretrain\` first.`,
      { code: 'MODEL_FORMAT', context: { dir } },
    );
  }
  const manifest = await readJsonChecked(path, {
    what: 'mage-tiny manifest',
    fix: REBUILD,
    kind: 'model',
    schema: manifestSchema,
  });
  let config: ModelConfig;
  try {
    config = defineModelConfig(manifest.config as ModelConfigInput);
  } catch (cause) {
    throw new CheckpointError(
      `'${path}' (mage-tiny manifest) has an invalid model config (${(cause as Error).message}); ${REBUILD}.`,
      { code: 'MODEL_FORMAT', cause, context: { path } },
    );
  }
  return { format: manifest.format, config, warmStart: manifest.warmStart };
}

async function readModelText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    const why = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'is missing' : 'cannot be read';
    throw new CheckpointError(`'${path}' (mage-tiny tokenizer) ${why}; ${REBUILD}.`, {
      code: 'MODEL_FORMAT',
      cause,
      context: { path },
    });
  }
}

/**
 * A trainable learner from a mage-tiny directory: its weights, a fresh optimizer with `optimizer`
 * (a warm start is a starting point, not a run to continue). Every file is checked: the manifest, both
 * tokenizer files, and the weights by name, dtype and shape against the manifest's model config.
 */
export async function loadMageTiny(dir: string, options: CreateMageTinyOptions = {}): Promise<OnnxLearner> {
  const manifest = await readMageTinyManifest(dir);
  const tokenizerJson = await readModelText(join(dir, 'tokenizer.json'));
  await readModelText(join(dir, 'tokenizer_config.json'));
  let tokenizer: WordLevelTokenizer;
  try {
    tokenizer = parseWordLevelTokenizer(tokenizerJson);
  } catch (cause) {
    throw new CheckpointError(
      `'${join(dir, 'tokenizer.json')}' (mage-tiny tokenizer) is not a word-level tokenizer (${(cause as Error).message}); ${REBUILD}.`,
      { code: 'MODEL_FORMAT', cause },
    );
  }
  const { config } = manifest;
  const modelDir = join(dir, 'model');
  const checkpoint = await loadCheckpoint(modelDir);
  checkCheckpointTensors(modelDir, checkpoint.weights, paramSpecs(config));
  const weights = new Map<string, Float32Array>();
  for (const [name, t] of checkpoint.weights) weights.set(name, t.data);
  return mageTinyLearner(config, tokenizer, options, weights);
}
