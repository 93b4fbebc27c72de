/**
 * The Treasure warm-start teacher. Note-blind (the default) it probes a uniformly random cell every turn
 * and never reads its notes, so the corpus holds many failed attempts and their factual notes. Reading its
 * notes (a share of meta-episodes, `adaptive`) it is the Bayes reader: from the probes and answers its
 * notes and the current attempt record, it keeps the rectangle of cells still possible and plays the
 * envs' exact probe plan on it (`treasurePlan`: on 3×3 the centre first, then the one cell the answer
 * leaves), and the found cell once a note records it. See architecture/recipes.md.
 */

import type { FinishedAttemptFactsV1, PolicyV1 } from '@mage-rl/core';
import {
  parseTreasureEvent,
  type TreasureEnv,
  type TreasureProbeFacts,
  treasurePlan,
} from '@mage-rl/envs/treasure';
import { envTeacher, infoStrings, type TeacherOptions } from './teacher-policy';

/** Attempts the reading teacher plans for, from the current one on (the default meta-episode's three). */
const PLAN_ATTEMPTS = 3;

/** The 0-based rows and columns still possible after `probes`, or the found cell; `null` if none is. */
export function treasureCandidates(
  width: number,
  height: number,
  probes: readonly TreasureProbeFacts[],
): { rows: [number, number]; cols: [number, number] } | null {
  const rows: [number, number] = [0, height - 1];
  const cols: [number, number] = [0, width - 1];
  const narrow = (range: [number, number], at: number, hint: -1 | 0 | 1) => {
    if (hint < 0) range[1] = Math.min(range[1], at - 1);
    else if (hint > 0) range[0] = Math.max(range[0], at + 1);
    else {
      range[0] = Math.max(range[0], at);
      range[1] = Math.min(range[1], at);
    }
  };
  for (const p of probes) {
    if (p.hint.found) return { rows: [p.row - 1, p.row - 1], cols: [p.col - 1, p.col - 1] };
    narrow(rows, p.row - 1, p.hint.row);
    narrow(cols, p.col - 1, p.hint.col);
  }
  return rows[0] <= rows[1] && cols[0] <= cols[1] ? { rows, cols } : null;
}

/** Every probe the noted attempts and the current attempt record, oldest first. */
function recordedProbes(
  earlier: readonly FinishedAttemptFactsV1[],
  current: readonly string[],
): TreasureProbeFacts[] {
  const events = [...earlier.flatMap((a) => a.events), ...current];
  return events.flatMap((e) => {
    const facts = parseTreasureEvent(e);
    return facts ? [facts] : [];
  });
}

/**
 * The reading teacher's probe (row-major cell): the cell a recorded probe found, else the exact plan's
 * probe on the rectangle of cells still possible; `null` when the records contradict each other.
 */
export function treasureReaderProbe(
  width: number,
  height: number,
  turns: number,
  earlier: readonly FinishedAttemptFactsV1[],
  current: readonly string[],
): number | null {
  const candidates = treasureCandidates(width, height, recordedProbes(earlier, current));
  if (!candidates) return null;
  const { rows, cols } = candidates;
  const h = rows[1] - rows[0] + 1;
  const w = cols[1] - cols[0] + 1;
  const probesLeft = Math.max(1, turns - current.length);
  const { probe } = treasurePlan(h, w, PLAN_ATTEMPTS, probesLeft, turns);
  return (rows[0] + probe.row) * width + cols[0] + probe.col;
}

function infoNumber(info: Readonly<Record<string, unknown>>, field: string, fallback: number): number {
  const value = info[field];
  return typeof value === 'number' ? value : fallback;
}

export function treasureTeacher(env: TreasureEnv, options: TeacherOptions = {}): PolicyV1 {
  const id = 'teacher-treasure';
  const turns = typeof env.options.maxTurns === 'number' ? env.options.maxTurns : 1;
  return envTeacher(env, id, options, (observation, rng, notes) => {
    const width = infoNumber(observation.info, 'width', 3);
    const height = infoNumber(observation.info, 'height', 3);
    if (notes.adaptive) {
      const current = infoStrings(observation, 'probes', id);
      const cell = treasureReaderProbe(width, height, turns, notes.earlier, current);
      if (cell !== null) return cell;
    }
    return rng.int(width * height);
  });
}
