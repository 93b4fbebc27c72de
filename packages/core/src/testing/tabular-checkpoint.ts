/** Saving and loading the tabular learner: one JSON file with the table, the step and the skip count. */

import { join } from 'node:path';
import { CheckpointError, firstIssue } from '@mage-rl/spec';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from '../io';
import type { TabularEntry, TabularState } from './tabular-state';

const FILE = 'tabular-learner.json';

const savedSchema = z.object({
  format: z.literal('mage-rl/tabular-learner@1'),
  candidates: z.array(z.string()),
  step: z.int().min(0),
  consecutiveSkips: z.int().min(0),
  entries: z.array(z.tuple([z.string(), z.array(z.number()), z.array(z.number()), z.array(z.number())])),
});

/** Writes `tabular-learner.json` into `dir` atomically. */
export async function saveTabular(state: TabularState, dir: string): Promise<void> {
  await writeJsonAtomic(join(dir, FILE), {
    format: 'mage-rl/tabular-learner@1',
    candidates: state.candidates,
    step: state.step,
    consecutiveSkips: state.consecutiveSkips,
    // Entries as an array: object keys that look like integers would be reordered.
    entries: [...state.table].map(([key, e]) => [key, [...e.logits], [...e.m], [...e.v]]),
  });
}

/** Replaces the state's table, step and skip count with those saved in `dir` (same candidates only). */
export async function loadTabular(state: TabularState, dir: string): Promise<void> {
  const path = join(dir, FILE);
  const saved = savedSchema.safeParse(await readJsonFile(path));
  if (!saved.success) {
    throw new CheckpointError(
      `'${path}' is not a tabular-learner checkpoint: ${firstIssue(saved.error).message}.`,
      {
        context: { path },
      },
    );
  }
  const data = saved.data;
  const { candidates } = state;
  const n = candidates.length;
  if (data.candidates.length !== n || data.candidates.some((c, i) => c !== candidates[i])) {
    throw new CheckpointError(`'${path}' was saved with different candidates.`, { context: { path } });
  }
  const next = new Map<string, TabularEntry>();
  for (const [key, logits, m, v] of data.entries) {
    if (logits.length !== n || m.length !== n || v.length !== n) {
      throw new CheckpointError(`'${path}': entry '${key}' does not have ${n} values.`, {
        context: { path },
      });
    }
    next.set(key, { logits: Float64Array.from(logits), m: Float64Array.from(m), v: Float64Array.from(v) });
  }
  state.table = next;
  state.step = data.step;
  state.consecutiveSkips = data.consecutiveSkips;
}
