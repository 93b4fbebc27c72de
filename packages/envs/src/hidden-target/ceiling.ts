/**
 * Exact reference levels of the hidden-target tasks (Treasure, Doors): the chance that attempt k of a
 * meta-episode succeeds — equivalently pass@k, since a reader that found the target plays it again — for
 * three players, computed by enumerating the targets (each equally likely). See architecture/envs.md.
 *
 * - memoryless: a uniformly random action on every turn, remembering nothing;
 * - no-repeat: a uniformly random action among those not yet tried and failed (notes kept, hints ignored);
 * - bayes: the reader that uses every hint, with the deterministic probe policy that maximises the
 *   expected number of successful attempts (exhaustive search).
 */

/** Success probability of attempts 1..K (index k − 1 is attempt k), each nondecreasing in k. */
export interface HiddenTargetLevels {
  readonly memoryless: readonly number[];
  readonly noRepeat: readonly number[];
  readonly bayes: readonly number[];
  /** Treasure only: the Bayes reader's levels after each first probe (`treasureFirstProbes`). */
  readonly bayesByFirstProbe?: readonly FirstProbeLevels[];
}

/** `actions` equally likely targets, a uniformly random action on every one of `turns` turns per attempt. */
export function memorylessPassAtK(actions: number, turns: number, attempts: number): number[] {
  const miss = 1 - 1 / actions;
  return Array.from({ length: attempts }, (_, k) => 1 - miss ** ((k + 1) * turns));
}

/**
 * A player that never repeats a failed action (uniform among the untried ones): every ordering of the
 * actions is equally likely, so the target is among the first m tried with probability m / actions.
 */
export function noRepeatPassAtK(actions: number, turns: number, attempts: number): number[] {
  return Array.from({ length: attempts }, (_, k) => Math.min(1, ((k + 1) * turns) / actions));
}

/** A probe of an h×w rectangle of still-possible cells: 0-based row and column inside it. */
export interface GridProbe {
  readonly row: number;
  readonly col: number;
}

export interface TreasurePlan {
  /** Success probability of each attempt left (the current one first). */
  readonly perAttempt: readonly number[];
  readonly value: number;
  readonly probe: GridProbe;
}

const plans = new Map<string, TreasurePlan>();

/** The expected number of successful attempts: what the best probe policy maximises. */
const expectedSuccesses = (perAttempt: readonly number[]): number => perAttempt.reduce((s, x) => s + x, 0);

/** Indices 0..n−1, the middle first, then outwards (lower before upper): ties go to centre-ish probes. */
function centreFirst(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => Math.abs(2 * a - (n - 1)) - Math.abs(2 * b - (n - 1)) || a - b,
  );
}

/** The sizes of the parts a probe at `i` splits an axis of length n into: before, at, after (0 = empty). */
function axisParts(n: number, i: number): [number, number, number] {
  return [i, 1, n - 1 - i];
}

/**
 * Success probability of each attempt left (the current one first) after probing (`row`, `col`) of an h×w
 * rectangle of still-possible cells and then playing the best probes (`treasurePlan`): the target is
 * uniform over the rectangle (the hints of probes inside a rectangle always leave a rectangle),
 * `attempts` attempts are left including the current one, `probesLeft` probes are left in the current
 * attempt and every attempt has `turns` probes. A probe that finds the target makes every attempt left a
 * success (the reader probes the known cell again).
 */
export function treasureProbeOutcome(
  height: number,
  width: number,
  attempts: number,
  probesLeft: number,
  turns: number,
  { row, col }: GridProbe,
): number[] {
  const cells = height * width;
  // Found now: every attempt left succeeds.
  const perAttempt = Array.from({ length: attempts }, () => 1 / cells);
  const rows = axisParts(height, row);
  const cols = axisParts(width, col);
  for (let a = 0; a < 3; a++) {
    for (let b = 0; b < 3; b++) {
      const h = rows[a] as number;
      const w = cols[b] as number;
      if (h === 0 || w === 0 || (a === 1 && b === 1)) continue;
      const p = (h * w) / cells;
      if (probesLeft > 1) {
        const sub = treasurePlan(h, w, attempts, probesLeft - 1, turns).perAttempt;
        sub.forEach((x, k) => {
          perAttempt[k] = (perAttempt[k] as number) + p * x;
        });
      } else if (attempts > 1) {
        // This attempt failed; the next one starts with a full set of probes.
        const sub = treasurePlan(h, w, attempts - 1, turns, turns).perAttempt;
        sub.forEach((x, k) => {
          perAttempt[k + 1] = (perAttempt[k + 1] as number) + p * x;
        });
      }
    }
  }
  return perAttempt;
}

/**
 * The best probe policy on the treasure grid, by exhaustive search over `treasureProbeOutcome`: the probe
 * that maximises the expected number of successful attempts (ties to the most central). Exact up to
 * floating point; memoised.
 */
export function treasurePlan(
  height: number,
  width: number,
  attempts: number,
  probesLeft: number,
  turns: number,
): TreasurePlan {
  const key = `${height},${width},${attempts},${probesLeft},${turns}`;
  const memo = plans.get(key);
  if (memo) return memo;
  let best: TreasurePlan | undefined;
  for (const row of centreFirst(height)) {
    for (const col of centreFirst(width)) {
      const probe = { row, col };
      const perAttempt = treasureProbeOutcome(height, width, attempts, probesLeft, turns, probe);
      const value = expectedSuccesses(perAttempt);
      if (!best || value > best.value + 1e-12) best = { perAttempt, value, probe };
    }
  }
  plans.set(key, best as TreasurePlan);
  return best as TreasurePlan;
}

/** The Bayes reader's pass@k after a given first probe: the cells (0-based) whose first probe gives it. */
export interface FirstProbeLevels {
  readonly cells: readonly GridProbe[];
  readonly bayes: readonly number[];
}

/**
 * The Bayes reader's pass@k when its first probe of the meta-episode is fixed and every later one is the
 * best: one entry per distinct level, its cells listed, best first. It shows what a first probe is worth
 * at each attempt: on 3×3 every first probe leads a reader to the treasure by attempt 3, and only the
 * centre makes attempt 2 certain.
 */
export function treasureFirstProbes(
  width: number,
  height: number,
  turns: number,
  attempts: number,
): FirstProbeLevels[] {
  const groups: { cells: GridProbe[]; bayes: number[] }[] = [];
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const bayes = treasureProbeOutcome(height, width, attempts, turns, turns, { row, col });
      const same = groups.find((g) => g.bayes.every((x, k) => Math.abs(x - (bayes[k] as number)) < 1e-12));
      if (same) same.cells.push({ row, col });
      else groups.push({ cells: [{ row, col }], bayes });
    }
  }
  return groups.sort((a, b) => expectedSuccesses(b.bayes) - expectedSuccesses(a.bayes));
}

/** The three levels of Treasure on a width×height grid with `turns` probes per attempt over K attempts. */
export function treasureLevels(
  width: number,
  height: number,
  turns: number,
  attempts: number,
): HiddenTargetLevels {
  const cells = width * height;
  return {
    memoryless: memorylessPassAtK(cells, turns, attempts),
    noRepeat: noRepeatPassAtK(cells, turns, attempts),
    // Attempt k succeeds exactly when the target was found by then: these are already pass@k.
    bayes: [...treasurePlan(height, width, attempts, turns, turns).perAttempt],
    bayesByFirstProbe: treasureFirstProbes(width, height, turns, attempts),
  };
}

/** The three levels of Doors with `doors` doors (one opening per attempt) over K attempts. */
export function doorsLevels(doors: number, attempts: number): HiddenTargetLevels {
  const noRepeat = noRepeatPassAtK(doors, 1, attempts);
  // Without hints, never reopening an empty door is all a reader can do: the Bayes reader is the no-repeat one.
  return { memoryless: memorylessPassAtK(doors, 1, attempts), noRepeat, bayes: noRepeat };
}

/**
 * The levels of a hidden-target env of this package (`treasure`, `doors`) with its resolved options, over
 * K attempts; `undefined` for any other env.
 */
export function hiddenTargetLevels(
  env: { readonly id: string; readonly options: Readonly<Record<string, unknown>> },
  attempts: number,
): HiddenTargetLevels | undefined {
  const n = (key: string) => env.options[key] as number;
  if (env.id === 'treasure') return treasureLevels(n('width'), n('height'), n('maxTurns'), attempts);
  if (env.id === 'doors') return doorsLevels(n('doors'), attempts);
  return undefined;
}
