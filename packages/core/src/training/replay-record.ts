/**
 * What the dashboard's replay reads: a bounded sample of each iteration's meta-episodes (with the
 * advantage of every turn) and the evaluation meta-episodes (up to `REPLAY_EVAL_MAX` per suite), texts cut
 * to `REPLAY_OBSERVATION_CHARS` / `REPLAY_RESPONSE_CHARS`; one JSON file per iteration or evaluation
 * under `<run>/episodes/`. Each file is written atomically, so a reader never sees half of one, and a
 * resumed run rewrites the files of the iterations it plays again. Layout: architecture/records.md.
 */

import { join } from 'node:path';
import type { AttemptRecord, MetaEpisodeBatchRecord, TaskRecord } from '@mage-rl/spec';
import { writeFileAtomic } from '../io';

export const EPISODES_FORMAT = 'mage-rl/episodes@1';
/** Meta-episodes of a training iteration that are recorded (the first slot of groups spread evenly). */
export const REPLAY_TRAIN_SAMPLE = 4;
/** Characters kept of a prompt: its end, the current observation (board, cards, the last event). */
export const REPLAY_OBSERVATION_CHARS = 600;
/** Characters kept of a response (a move or a reflection). */
export const REPLAY_RESPONSE_CHARS = 1000;
/** Evaluation meta-episodes recorded per suite at most (spread evenly over the suite's groups). */
export const REPLAY_EVAL_MAX = 256;

/** One policy call of a recorded meta-episode. */
export interface ReplayTurnV1 {
  readonly attempt: number;
  /** Play turn inside the attempt; −1 for the reflection written before `attempt`. */
  readonly turn: number;
  readonly phase: 'play' | 'reflect';
  /** The end of the prompt: the observation (board, cards) the policy answered. */
  readonly observation: string;
  readonly response: string;
  readonly reward: number;
  readonly valid: boolean;
  readonly invalid?: 'format' | 'rule';
  /** The row's advantage in the update; null for evaluation episodes. */
  readonly advantage: number | null;
}

export interface ReplayEpisodeV1 {
  readonly suite: 'train' | 'inDomain' | 'outOfDomain';
  readonly slot: string;
  readonly group: string;
  readonly task: TaskRecord;
  readonly attempts: readonly AttemptRecord[];
  readonly turns: readonly ReplayTurnV1[];
}

/** `episodes/train-NNNNNN.json` or `episodes/eval-NNNNNN.json` (`eval-start.json` before training). */
export interface EpisodesRecordV1 {
  readonly format: typeof EPISODES_FORMAT;
  readonly kind: 'train' | 'eval';
  /** The iteration (−1: the evaluation before training). */
  readonly iteration: number;
  readonly episodes: readonly ReplayEpisodeV1[];
}

const tail = (text: string): string =>
  text.length <= REPLAY_OBSERVATION_CHARS ? text : `…${text.slice(text.length - REPLAY_OBSERVATION_CHARS)}`;
const head = (text: string): string =>
  text.length <= REPLAY_RESPONSE_CHARS ? text : `${text.slice(0, REPLAY_RESPONSE_CHARS)}…`;

/** Up to `count` group ids spread evenly over the batch (so several opponents show). */
function spreadGroups(batch: MetaEpisodeBatchRecord, count: number): Set<string> {
  const groups = batch.groups.map((g) => g.group);
  if (groups.length <= count) return new Set(groups);
  const step = groups.length / count;
  return new Set(Array.from({ length: count }, (_, i) => groups[Math.floor(i * step)]!));
}

/**
 * The replay episodes of `batch`: every slot (`sample` null) or the first slot of `sample` groups;
 * `advantages` (aligned with `batch.rows`) when the batch was trained on.
 */
export function replayEpisodes(
  batch: MetaEpisodeBatchRecord,
  suite: ReplayEpisodeV1['suite'],
  options: { readonly sample: number | null; readonly advantages?: ArrayLike<number> },
): ReplayEpisodeV1[] {
  const chosen = options.sample === null ? null : spreadGroups(batch, options.sample);
  const slots = batch.slots.filter((s) => {
    if (chosen === null) return true;
    if (!chosen.has(s.group)) return false;
    return batch.groups.find((g) => g.group === s.group)?.slots[0] === s.slot;
  });
  return slots.map((slot) => ({
    suite,
    slot: slot.slot,
    group: slot.group,
    task: slot.task,
    attempts: slot.attempts.map((a) =>
      a.reflection === undefined ? a : { ...a, reflection: head(a.reflection) },
    ),
    turns: batch.rows.flatMap((r, i) =>
      r.slot !== slot.slot
        ? []
        : [
            {
              attempt: r.attempt,
              turn: r.turn,
              phase: r.phase,
              observation: tail(r.promptText),
              response: head(r.responseText),
              reward: r.reward,
              valid: r.valid,
              ...(r.invalid ? { invalid: r.invalid } : {}),
              advantage: options.advantages ? Number(options.advantages[i] ?? 0) : null,
            },
          ],
    ),
  }));
}

/** The file of a training iteration's or an evaluation's episodes. */
export function episodesPath(runDir: string, kind: 'train' | 'eval', iteration: number): string {
  const name = iteration < 0 ? `${kind}-start` : `${kind}-${String(iteration).padStart(6, '0')}`;
  return join(runDir, 'episodes', `${name}.json`);
}

/** Writes one episodes file atomically (temporary file + rename). */
export async function writeEpisodes(runDir: string, record: Omit<EpisodesRecordV1, 'format'>): Promise<void> {
  const text = JSON.stringify({ format: EPISODES_FORMAT, ...record });
  await writeFileAtomic(episodesPath(runDir, record.kind, record.iteration), `${text}\n`);
}
