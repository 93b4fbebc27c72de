/**
 * The trainer's part of a run directory's record (`config.json`, format `mage-rl/run-config@1`): the
 * trainer's resolved config and the model directory the run started from (its warm start), stored as core's
 * `storedPath` makes it (relative to the working directory when inside it). Core's loop writes the file when
 * a run starts, with `runRecordOf` as the part the trainer owns (`extra`); core's `readRunRecord` is its one
 * reader, re-exported with `RunRecordV1` so the trainer's API keeps them. `modelSourceOf` resolves a run to
 * the model it loads. See architecture/records.md.
 */

import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  ConfigError,
  type JsonObject,
  latestCheckpoint,
  pathExists,
  readRunRecord,
  storedPath,
} from '@mage-rl/core';
import type { ModelSourceV1 } from '@mage-rl/learner';
import { type TrainConfig, toJsonObject } from '@mage-rl/recipes';

export { type RunRecordV1, readRunRecord } from '@mage-rl/core';

/**
 * The part of the record the trainer writes (config.json's `extra`): the resolved config and the warm start,
 * `warmStartDir` as given (`runRecordFor` stores it the way records do).
 */
export const runRecordOf = (config: TrainConfig, warmStartDir: string): JsonObject => ({
  ...toJsonObject(config),
  warmStartDir,
});

/**
 * The record of the run in `runDir` as `runRecordOf` makes it, the warm start stored relative to the working
 * directory when inside it; when the run's saved record names the same directory in another form (an
 * absolute path, as runs recorded before paths were stored relative do), that form, so a resume compares
 * equal.
 */
export async function runRecordFor(
  runDir: string,
  config: TrainConfig,
  warmStartDir: string,
): Promise<JsonObject> {
  const saved = (await pathExists(join(runDir, 'config.json')))
    ? await readRunRecord(runDir).then(
        (r) => r.warmStartDir,
        () => null,
      )
    : null;
  const same = saved !== null && (await recordedDir(runDir, saved)) === resolve(warmStartDir);
  return runRecordOf(config, same ? saved : storedPath(warmStartDir));
}

/**
 * Where a directory the record of `runDir` names is: an absolute path as it is; a relative one (relative to
 * the directory the run was started from) under the working directory, else under the nearest ancestor of
 * the run directory that holds it (the run was started from one of them when it lies inside that
 * directory); null when none does.
 */
export async function recordedDir(runDir: string, recorded: string): Promise<string | null> {
  if (isAbsolute(recorded)) return recorded;
  const candidates = [process.cwd()];
  for (let dir = dirname(resolve(runDir)); ; dir = dirname(dir)) {
    candidates.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const base of candidates) {
    if (await pathExists(resolve(base, recorded))) return resolve(base, recorded);
  }
  return null;
}

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
  const modelDir = await recordedDir(dir, warmStartDir);
  if (modelDir === null) {
    throw new ConfigError(
      `Run '${resolve(dir)}' started from the warm start '${warmStartDir}' (relative to the directory it was started from), which is neither under the working directory nor under a directory above the run; run the command from the directory the run was started in, or restore the warm start.`,
      { path: 'run directory', context: { warmStartDir } },
    );
  }
  return { modelDir, checkpointDir: checkpoint.dir };
}
