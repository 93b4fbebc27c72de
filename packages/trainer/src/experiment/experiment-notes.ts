/**
 * The notes an experiment's foreign-notes control shows: by default those of other meta-episodes of the
 * policy's own reflection evaluation; with a note donor, those the donor wrote playing the same tasks.
 */

import type { MemoryV1 } from '@mage-rl/core';
import {
  type ConfigEvaluationV1,
  createEnvById,
  createTeacher,
  type EvaluateConfigOptions,
  type EvaluationSuiteV1,
  evaluateConfig,
  type TrainConfig,
} from '@mage-rl/recipes';
import { withForeignNotes } from '@mage-rl/reflection';
import { type ForeignNoteSwapsV1, foreignNoteDonors, foreignNoteSwaps } from '../evaluate/foreign-notes';
import { loadPolicy } from '../evaluate/load-policy';

/**
 * Wraps each suite's memory so every earlier attempt shows the note another meta-episode of the same suite
 * of `donors` (a reflection evaluation: the policy's own, or the donor's) wrote after that attempt.
 */
export function foreignNotesOf(donors: readonly ConfigEvaluationV1[]) {
  return (memory: MemoryV1, suite: EvaluationSuiteV1): MemoryV1 =>
    withForeignNotes(memory, foreignNoteDonors(suiteBatch(donors, suite)));
}

/** How many of a suite's own notes the foreign-notes evaluation swapped, and how many by the same text. */
export function swapsOf(
  own: readonly ConfigEvaluationV1[],
  donors: readonly ConfigEvaluationV1[],
  suite: EvaluationSuiteV1,
): ForeignNoteSwapsV1 {
  return foreignNoteSwaps(suiteBatch(own, suite), suiteBatch(donors, suite)).swaps;
}

/** The games of `suite` in a reflection evaluation, whose notes the foreign-notes evaluation shows. */
function suiteBatch(reflection: readonly ConfigEvaluationV1[], suite: EvaluationSuiteV1) {
  const own = reflection.find((r) => r.suite.name === suite.name);
  if (!own) throw new Error(`The reflection evaluation has no suite '${suite.name}' to take notes from.`);
  return own.result.batch;
}

/**
 * The note donor's reflection evaluation on the tasks of `config`: `teacher` (the env's warm-start teacher,
 * made for each suite's env options), or a run or model directory.
 */
export async function donorEvaluation(
  donor: string,
  config: TrainConfig,
  signal?: AbortSignal,
): Promise<ConfigEvaluationV1[]> {
  const play = (policy: EvaluateConfigOptions['policy']) =>
    evaluateConfig({ config, policy, memory: 'reflection', ...(signal ? { signal } : {}) });
  if (donor === 'teacher') {
    const style = { style: config.rollout.style };
    return play((suite) => createTeacher(createEnvById(config.env.id, suite.envOptions), style));
  }
  const loaded = await loadPolicy({
    policy: donor,
    option: 'noteDonor',
    env: config.env.id,
    envOptions: config.env.options,
    style: config.rollout.style,
  });
  try {
    return await play(loaded.policy);
  } finally {
    await loaded.dispose();
  }
}
