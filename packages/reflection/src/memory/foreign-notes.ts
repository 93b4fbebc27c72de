/**
 * The control of a memory benefit: the same memory, but every earlier attempt shows the note (and result)
 * written in another meta-episode. A policy that reads what its notes say plays worse with foreign notes
 * than with its own; a policy that only needs notes-shaped text in its context plays as well with either.
 */

import type {
  AttemptOutcome,
  MemoryAttemptV1,
  MemorySlotInfoV1,
  MemorySlotV1,
  MemoryV1,
} from '@mage-rl/spec';

/** A reflection written in another meta-episode, with the result of the attempt it was written after. */
export interface ForeignNoteV1 {
  readonly outcome: AttemptOutcome;
  /** The reflect response (tags included) and its token ids (empty for text-only policies). */
  readonly response: string;
  readonly responseTokens: readonly number[];
}

/**
 * `memory` with each earlier attempt's note replaced by `donor(info, attempt)` (0-based attempt); an
 * attempt keeps its own note when the donor returns undefined or it wrote none.
 */
export function withForeignNotes(
  memory: MemoryV1,
  donor: (info: MemorySlotInfoV1, attempt: number) => ForeignNoteV1 | undefined,
): MemoryV1 {
  return {
    specificationVersion: 'v1',
    id: `${memory.id}/foreign-notes`,
    reflects: memory.reflects,
    ...(memory.commit ? { commit: () => memory.commit?.() } : {}),
    createSlot(info: MemorySlotInfoV1): MemorySlotV1 {
      const inner = memory.createSlot(info);
      const swap = (a: MemoryAttemptV1): MemoryAttemptV1 => {
        const note = a.reflection ? donor(info, a.attempt) : undefined;
        if (!note || !a.reflection) return a;
        const parsed = inner.parseReflection(note.response);
        return {
          ...a,
          outcome: note.outcome,
          reflection: {
            ...a.reflection,
            response: note.response,
            responseTokens: note.responseTokens,
            note: parsed.note,
            valid: parsed.valid,
          },
        };
      };
      return {
        playMessages: (view) => inner.playMessages({ ...view, earlier: view.earlier.map(swap) }),
        // The attempt just finished has no note yet, so it is shown as it happened.
        reflectMessages: (view) => inner.reflectMessages({ ...view, earlier: view.earlier.map(swap) }),
        parseReflection: (response) => inner.parseReflection(response),
        attemptEnded: (attempt) => inner.attemptEnded(attempt),
      };
    },
  };
}
