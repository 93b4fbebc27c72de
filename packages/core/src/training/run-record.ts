/**
 * A run directory's record (`config.json`, format `mage-rl/run-config@1`) as its readers know it: the
 * resolved config its caller saved in `extra` (the trainer's, for a run `mage train` started) and the model
 * directory the run started from (its warm start). The loop writes the file when a run starts (`openRun`)
 * and interprets nothing in `extra`; everything that reads a run's config, method, env or warm start reads
 * it through `readRunRecord` (the trainer, the dashboard). See architecture/records.md.
 */

import type { JsonObject } from '@mage-rl/spec';
import { z } from 'zod';
import { readJsonChecked } from '../io';
import { RUN_CONFIG_FORMAT, runPaths } from './run-dir';

/** What a run directory records of its training, as its readers read it. */
export interface RunRecordV1 {
  readonly format: typeof RUN_CONFIG_FORMAT;
  /**
   * The caller's resolved config as saved, less the warm start; a record written by an older version lacks
   * the sections added since (`memory`, `learner`). Null when the run was not started by the trainer.
   */
  readonly config: JsonObject | null;
  /** The method id it trained with, when recorded. */
  readonly method: string | null;
  /** The env id it trained on, when recorded. */
  readonly env: string | null;
  /** The model directory the run started from (its warm start, or `--model`), when recorded. */
  readonly warmStartDir: string | null;
}

/** A string field, or undefined when it is missing or something else (older or foreign records). */
const optionalString = z.string().optional().catch(undefined);

/**
 * The record on disk. Only the format is required: a field the readers use but the record lacks, or holds
 * in another shape, reads as null. Records written before `warmStartDir` existed hold the directory in
 * `warmStart` (where the warm-start settings are now).
 */
const runRecordSchema = z
  .object({
    format: z.literal(RUN_CONFIG_FORMAT),
    extra: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .catch(null)
      .transform((extra) => extra ?? null),
  })
  .loose()
  .transform(({ format, extra }): RunRecordV1 => {
    if (extra === null) return { format, config: null, method: null, env: null, warmStartDir: null };
    const { warmStartDir, warmStart, ...rest } = extra;
    const legacy = typeof warmStart === 'string';
    const config = (
      legacy ? rest : { ...rest, ...(warmStart === undefined ? {} : { warmStart }) }
    ) as JsonObject;
    const env = z
      .object({ id: optionalString })
      .loose()
      .nullable()
      .optional()
      .catch(undefined)
      .parse(extra.env);
    return {
      format,
      config,
      method: optionalString.parse(extra.method) ?? null,
      env: env?.id ?? null,
      warmStartDir: optionalString.parse(warmStartDir) ?? (legacy ? warmStart : null),
    };
  });

/** The record of `runDir` (its `config.json`); a missing, damaged or foreign file is a `MageError` naming it. */
export async function readRunRecord(runDir: string): Promise<RunRecordV1> {
  return readJsonChecked(runPaths(runDir).config, {
    what: "the run's configuration record",
    fix: 'it is not the record of a mage-rl run (or it is damaged): restore it, or choose another run directory',
    schema: runRecordSchema,
  });
}
