/**
 * The shared shell of the warm-start teachers: a text-only `PolicyV1` that reads the structured turn
 * facts (`PolicyRequestV1.facts`) instead of the prompt, draws its randomness from `request.seed`, answers
 * play turns with an env-formatted action and reflect turns with a templated factual note.
 */

import {
  createRng,
  type EnvObservationV1,
  type FinishedAttemptFactsV1,
  InvalidArgumentError,
  type PolicyFactsV1,
  type PolicyRequestV1,
  type PolicyResponseV1,
  type PolicyV1,
  type PromptStyle,
  type Rng,
} from '@mage-rl/core';
import { factualNote, type NoteFacts } from './notes';

/** Options every teacher takes. */
export interface TeacherOptions {
  /** Prompt style the runner uses (`compact` for mage-tiny). Actions and notes follow it. Default `compact`. */
  readonly style?: PromptStyle;
  /**
   * The share of meta-episodes (drawn per task and slot) in which the teacher reads its notes: it plays
   * from what its earlier attempts recorded, where its env's teacher knows how to adapt. Default 0: every
   * meta-episode note-blind.
   */
  readonly adaptive?: number;
  /**
   * The share of the note-blind meta-episodes (drawn per task and slot) whose first attempt the teacher
   * plays as its reading self would: with no notes yet, that is the opening of its env's adaptive play
   * (Treasure's Bayes reader probes the centre of a 3×3 grid first). Later attempts stay note-blind, so the
   * corpus shows a deliberate first probe but no reading. Default 0.
   */
  readonly readerOpening?: number;
}

export type FinishedFacts = FinishedAttemptFactsV1;

/** What a teacher's play turn may read of its notes. */
export interface TeacherNotes {
  /**
   * Whether this turn is played from the notes (the share `adaptive` decides per meta-episode; on the
   * first attempt the share `readerOpening` too, with no notes to read).
   */
  readonly adaptive: boolean;
  /** The earlier attempts whose notes are in the context, oldest first (empty unless `adaptive`). */
  readonly earlier: readonly FinishedAttemptFactsV1[];
}

/** A teacher: its id, style, shares (`TeacherOptions`) and play rule. */
export interface TeacherSpec extends Pick<TeacherOptions, 'adaptive' | 'readerOpening'> {
  readonly id: string;
  readonly style: PromptStyle;
  /**
   * What its notes state besides the result (`FactualNoteOptions.facts`): every turn's line and the reveal
   * (`events`, the default), or the reveal alone (`reveal`), for an env whose reveal says what a note needs.
   */
  readonly noteFacts?: NoteFacts;
  /** The response text of a play turn (an action in the env's format, tags included). */
  play(observation: EnvObservationV1, rng: Rng, notes: TeacherNotes): string;
}

const NOTE_BLIND: TeacherNotes = { adaptive: false, earlier: [] };

/** The teacher's shares of `options`, as `TeacherSpec` takes them (absent when unset). */
export function teacherShares(options: TeacherOptions): Pick<TeacherOptions, 'adaptive' | 'readerOpening'> {
  return {
    ...(options.adaptive === undefined ? {} : { adaptive: options.adaptive }),
    ...(options.readerOpening === undefined ? {} : { readerOpening: options.readerOpening }),
  };
}

/** Whether this meta-episode draws `share`: one draw per task, slot and kind. */
function drawn(kind: string, facts: PolicyFactsV1, share: number): boolean {
  return share > 0 && createRng(`teacher/${kind}/${facts.taskSeed ?? 0}/${facts.slot}`).next() < share;
}

/** Whether the teacher reads its notes on this play turn, and which. */
function notesOf(facts: PolicyFactsV1, spec: TeacherSpec): TeacherNotes {
  if (drawn('adaptive', facts, spec.adaptive ?? 0)) return { adaptive: true, earlier: facts.earlier ?? [] };
  if (facts.attempt === 0 && drawn('opening', facts, spec.readerOpening ?? 0)) {
    return { adaptive: true, earlier: [] };
  }
  return NOTE_BLIND;
}

/** A teacher policy from a play rule; reflect turns get `factualNote`. */
export function teacherPolicy(spec: TeacherSpec): PolicyV1 {
  const respond = (request: PolicyRequestV1): string => {
    const facts = request.facts;
    if (!facts) {
      throw new InvalidArgumentError(
        `Teacher '${spec.id}' needs request.facts (the runner of @mage-rl/core provides them).`,
      );
    }
    const rng = createRng(`teacher/${request.seed ?? 0}`);
    if (request.phase === 'reflect') {
      if (!facts.finished) {
        throw new InvalidArgumentError(`Teacher '${spec.id}': a reflect turn without facts.finished.`);
      }
      return factualNote(facts.finished, {
        attempt: facts.attempt - 1,
        style: spec.style,
        ...(spec.noteFacts ? { facts: spec.noteFacts } : {}),
      });
    }
    if (!facts.observation) {
      throw new InvalidArgumentError(`Teacher '${spec.id}': a play turn without facts.observation.`);
    }
    return spec.play(facts.observation, rng, notesOf(facts, spec));
  };
  return {
    specificationVersion: 'v1',
    id: spec.id,
    async generate(requests) {
      return requests.map(
        (request): PolicyResponseV1 => ({
          text: respond(request),
          promptTokens: [],
          tokens: [],
          logprobs: [],
          finishReason: 'stop',
        }),
      );
    },
  };
}

/**
 * The teacher `id` of an env from a rule that picks the action of a play turn: the action is written in
 * the env's format and the style of `options` (default `compact`), whose shares decide when the rule reads
 * its notes; `notes` chooses what its notes state.
 */
export function envTeacher<A>(
  env: { formatAction(action: A, style: PromptStyle): string },
  id: string,
  options: TeacherOptions,
  pick: (observation: EnvObservationV1, rng: Rng, notes: TeacherNotes) => A,
  notes: Pick<TeacherSpec, 'noteFacts'> = {},
): PolicyV1 {
  const style = options.style ?? 'compact';
  return teacherPolicy({
    id,
    style,
    ...notes,
    ...teacherShares(options),
    play: (observation, rng, notes) => env.formatAction(pick(observation, rng, notes), style),
  });
}

/** A string-array field of an observation's `info`, or a clear error. */
export function infoStrings(observation: EnvObservationV1, field: string, teacher: string): string[] {
  const value = observation.info[field];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new InvalidArgumentError(
      `Teacher '${teacher}': observation.info.${field} must be a list of strings (is this the right env?).`,
      { context: { field } },
    );
  }
  return value as string[];
}

/** A string field of an observation's `info`, or a clear error. */
export function infoString(observation: EnvObservationV1, field: string, teacher: string): string {
  const value = observation.info[field];
  if (typeof value !== 'string') {
    throw new InvalidArgumentError(
      `Teacher '${teacher}': observation.info.${field} must be a string (is this the right env?).`,
      { context: { field } },
    );
  }
  return value;
}
