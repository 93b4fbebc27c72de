/**
 * The trainer's part of a run directory's record (`config.json`, format `mage-rl/run-config@1`): the
 * trainer's resolved config and the model directory the run started from (its warm start). Core's loop
 * writes the file when a run starts, with `runRecordOf` as the part the trainer owns (`extra`); core's
 * `readRunRecord` is its one reader, re-exported with `RunRecordV1` so the trainer's API keeps them.
 * `modelSourceOf` resolves a run to the model it loads. See architecture/records.md.
 */

import { resolve } from 'node:path';
import { ConfigError, type JsonObject, latestCheckpoint, readRunRecord } from '@mage-rl/core';
import type { ModelSourceV1 } from '@mage-rl/learner';
import { type TrainConfig, toJsonObject } from '@mage-rl/recipes';

export { type RunRecordV1, readRunRecord } from '@mage-rl/core';

/** The part of the record the trainer writes (config.json's `extra`): the resolved config and the warm start. */
export const runRecordOf = (config: TrainConfig, warmStartDir: string): JsonObject => ({
  ...toJsonObject(config),
  warmStartDir,
});

/**
 * What a run or model directory loads as: a run (a directory with a checkpoint) is its recorded warm start
 * with its latest checkpoint over it; anything else is a model directory, loaded as it is.
 */
export async function modelSourceOf(dir: string): Promise<ModelSourceV1> {
  const checkpoint = await latestCheckpoint(resolve(dir));
  if (checkpoint === null) return { modelDir: resolve(dir) };
  const { warmStartDir } = await readRunRecord(resolve(dir));
  if (warmStartDir === null) {
    throw new ConfigError(`Run '${resolve(dir)}' does not record its warm start; cannot rebuild its model.`, {
      path: 'run directory',
    });
  }
  return { modelDir: warmStartDir, checkpointDir: checkpoint.dir };
}
