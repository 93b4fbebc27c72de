/**
 * An evaluation with a memory and, on the same tasks, with none: what the memory is worth to the policy,
 * paired over the meta-episodes (core's `pairedPassBenefit`). Optionally a third run shows each
 * meta-episode another one's notes: what the notes' content, rather than their presence, is worth.
 */

import {
  ConfigError,
  type MemoryV1,
  type PairedPassBenefitV1,
  type PolicyV1,
  pairedPassBenefit,
  type SlotRecord,
} from '@mage-rl/core';
import {
  createEnvById,
  createMemoryOfKind,
  evalPlayOptions,
  evaluateMethod,
  type MemoryKind,
  type MethodEvaluationV1,
  memoryLayoutOf,
  type TrainConfig,
} from '@mage-rl/recipes';
import { NOTE_MODES, withForeignNotes } from '@mage-rl/reflection';
import { type ForeignNoteSwapsV1, foreignNoteDonors, foreignNoteSwaps } from './foreign-notes';

export interface EvaluateWithMemoryOptions {
  /** Env, its options, prompt layout and evaluation sampling. */
  readonly config: TrainConfig;
  readonly policy: PolicyV1;
  /** The method whose prompts the policy plays with. */
  readonly method: TrainConfig['method'];
  readonly memory: MemoryKind;
  readonly opponents: readonly string[];
  readonly episodes: number;
  readonly attempts: number;
  readonly seed: number | string;
  /** Also play the same tasks with no memory (when `memory` is not `none`). Default true. */
  readonly baseline?: boolean;
  /**
   * Also play the same tasks with every earlier attempt showing the note another meta-episode wrote
   * (`foreignNoteDonors`). Needs a memory that shows notes. Default false.
   */
  readonly foreignNotes?: boolean;
  /**
   * With `foreignNotes`: the policy whose notes are swapped in, played first on the same tasks with the
   * same memory. Default: this policy's own evaluation. Another policy's notes name moves this one did not
   * make, so they can show reading where its own cannot (a fixed first move writes one note everywhere).
   */
  readonly noteDonor?: PolicyV1;
  readonly signal?: AbortSignal;
}

export interface MemoryEvaluationV1 {
  readonly result: MethodEvaluationV1;
  /** The same tasks with no memory, and the paired difference; absent without a baseline. */
  readonly withoutMemory?: { readonly result: MethodEvaluationV1; readonly benefit: PairedPassBenefitV1 };
  /**
   * The same tasks with foreign notes and own notes minus foreign ones; how many of the swapped notes read as
   * the replaced ones (swaps the control cannot see), and own minus foreign notes over the meta-episodes with
   * at least one swapped note that differs (absent when there is none); absent unless asked.
   */
  readonly foreignNotes?: {
    readonly result: MethodEvaluationV1;
    readonly benefit: PairedPassBenefitV1;
    readonly swaps: ForeignNoteSwapsV1;
    readonly whereNotesDiffer?: PairedPassBenefitV1;
  };
}

export async function evaluateWithMemory(options: EvaluateWithMemoryOptions): Promise<MemoryEvaluationV1> {
  const { config } = options;
  if (options.foreignNotes && !(NOTE_MODES as readonly string[]).includes(options.memory)) {
    throw new ConfigError(
      `Foreign notes replace the notes of earlier attempts, which memory '${options.memory}' does not show; use ${NOTE_MODES.join(' or ')}.`,
      { path: 'memory', context: { memory: options.memory } },
    );
  }
  if (options.noteDonor && !options.foreignNotes) {
    throw new ConfigError('`noteDonor` gives the foreign notes: it needs `foreignNotes`.', {
      path: 'noteDonor',
    });
  }
  const layout = memoryLayoutOf(config);
  // Every run plays the same tasks (same seed, opponents, episodes), so their differences are paired.
  const run = (memory: MemoryV1, policy: PolicyV1 = options.policy) =>
    evaluateMethod({
      env: createEnvById(config.env.id, { ...config.env.options, ...config.eval.envOptions }),
      policy,
      method: options.method,
      opponents: options.opponents,
      episodes: options.episodes,
      attempts: options.attempts,
      memory,
      ...evalPlayOptions(config),
      seed: options.seed,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const paired = (other: MethodEvaluationV1) => ({
    result: other,
    benefit: pairedPassBenefit(result.batch.slots, other.batch.slots, options.attempts),
  });
  const result = await run(createMemoryOfKind(options.memory, layout));
  // The foreign notes come from a finished run (the one above, or the donor's on the same tasks), so their
  // swaps are known before they are played.
  const withForeign = async () => {
    const { noteDonor } = options;
    const donors = noteDonor
      ? (await run(createMemoryOfKind(options.memory, layout), noteDonor)).batch
      : result.batch;
    const other = await run(
      withForeignNotes(createMemoryOfKind(options.memory, layout), foreignNoteDonors(donors)),
    );
    const { swaps, differing } = foreignNoteSwaps(result.batch, donors);
    const only = (slots: readonly SlotRecord[]) => slots.filter((s) => differing.has(s.slot));
    return {
      ...paired(other),
      swaps,
      ...(differing.size > 0
        ? {
            whereNotesDiffer: pairedPassBenefit(
              only(result.batch.slots),
              only(other.batch.slots),
              options.attempts,
            ),
          }
        : {}),
    };
  };
  const foreign = options.foreignNotes ? await withForeign() : undefined;
  const baseline = options.memory !== 'none' && options.baseline !== false;
  return {
    result,
    ...(baseline ? { withoutMemory: paired(await run(createMemoryOfKind('none', layout))) } : {}),
    ...(foreign ? { foreignNotes: foreign } : {}),
  };
}
