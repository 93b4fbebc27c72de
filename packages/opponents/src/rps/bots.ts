/**
 * Rock-Paper-Scissors bots with a fixed rule over the throws of the game so far (their own and the
 * other player's), in the spirit of the bots of the first roshambo programming competition (OpenSpiel's
 * `roshambo`). Every rule is deterministic, so a reader of its notes can learn it exactly; the game
 * restarts every attempt, and with it the bot's state. Each family comes with each opening throw.
 *
 * - Training families (the `balanced` population): `constant-<t>` (always t), `cycle-<t>` (t, then what
 *   beats its own last: rock, paper, scissors, …), `cycle-back-<t>` (t, then what loses to its own last),
 *   `beat-last-<t>`, `copy-last-<t>`, `lose-last-<t>` (t, then what beats / copies / loses to the other
 *   player's last throw).
 * - Out-of-domain families (the `ood` population): `double-cycle-<t>` (each throw of the cycle twice),
 *   `beat-two-back-<t>` (t twice, then what beats the other's throw two back), `win-stay-<t>` (keeps its
 *   throw after a round it won, else shifts to what beats its own last) and `frequency-<t>` (what beats the
 *   other's most frequent throw so far, ties to the one it threw first).
 */

import { beats, losesTo, RPS_THROWS, type RpsState, type RpsThrow, roundScore } from '@mage-rl/envs/rps';
import type { OpponentV1 } from '@mage-rl/spec';

/** A deterministic bot: its throw after the completed rounds (`own` and `other` are equally long). */
export interface RpsBotRule {
  readonly id: string;
  next(own: readonly RpsThrow[], other: readonly RpsThrow[]): RpsThrow;
}

type Next = (t: RpsThrow, own: readonly RpsThrow[], other: readonly RpsThrow[]) => RpsThrow;

const last = <T>(xs: readonly T[]): T | undefined => xs[xs.length - 1];

/** Each family: its rule given the opening throw `t`. */
const TRAINING_FAMILIES: Readonly<Record<string, Next>> = {
  constant: (t) => t,
  cycle: (t, own) => {
    const l = last(own);
    return l === undefined ? t : beats(l);
  },
  'cycle-back': (t, own) => {
    const l = last(own);
    return l === undefined ? t : losesTo(l);
  },
  'beat-last': (t, _own, other) => {
    const l = last(other);
    return l === undefined ? t : beats(l);
  },
  'copy-last': (t, _own, other) => last(other) ?? t,
  'lose-last': (t, _own, other) => {
    const l = last(other);
    return l === undefined ? t : losesTo(l);
  },
};

/** The other player's most frequent throw; ties go to the one it threw first. */
function mostFrequent(other: readonly RpsThrow[]): RpsThrow | undefined {
  let best: RpsThrow | undefined;
  let bestCount = 0;
  for (const t of other) {
    const count = other.filter((x) => x === t).length;
    if (count > bestCount) {
      best = t;
      bestCount = count;
    }
  }
  return best;
}

const OOD_FAMILIES: Readonly<Record<string, Next>> = {
  'double-cycle': (t, own) => {
    const l = last(own);
    if (l === undefined) return t;
    return own.length % 2 === 1 ? l : beats(l);
  },
  'beat-two-back': (t, _own, other) => {
    const back = other[other.length - 2];
    return back === undefined ? t : beats(back);
  },
  'win-stay': (t, own, other) => {
    const mine = last(own);
    const theirs = last(other);
    if (mine === undefined || theirs === undefined) return t;
    return roundScore(mine, theirs) > 0 ? mine : beats(mine);
  },
  frequency: (t, _own, other) => {
    const top = mostFrequent(other);
    return top === undefined ? t : beats(top);
  },
};

function rulesOf(families: Readonly<Record<string, Next>>): RpsBotRule[] {
  return Object.entries(families).flatMap(([family, next]) =>
    RPS_THROWS.map((t) => ({ id: `${family}-${t}`, next: (own, other) => next(t, own, other) })),
  );
}

/** The 18 bots of the training families, family by family, each with rock, paper, scissors openings. */
export const RPS_TRAINING_BOTS: readonly RpsBotRule[] = rulesOf(TRAINING_FAMILIES);

/** The 12 bots of the out-of-domain families. */
export const RPS_OOD_BOTS: readonly RpsBotRule[] = rulesOf(OOD_FAMILIES);

/** Every rule bot by id. */
export const RPS_BOTS: ReadonlyMap<string, RpsBotRule> = new Map(
  [...RPS_TRAINING_BOTS, ...RPS_OOD_BOTS].map((rule) => [rule.id, rule]),
);

/** The completed rounds of `state` from `player`'s side: its own throws and the other's, equally long. */
export function rpsRoundsOf(
  state: RpsState,
  player: number,
): { own: readonly RpsThrow[]; other: readonly RpsThrow[] } {
  const own = state.played[player === 1 ? 1 : 0];
  const other = state.played[player === 1 ? 0 : 1];
  const n = Math.min(own.length, other.length);
  return { own: own.slice(0, n), other: other.slice(0, n) };
}

/** The opponent playing `rule`, from whichever seat it is given. */
export function rpsBotOpponent(rule: RpsBotRule): OpponentV1<RpsState, RpsThrow> {
  return {
    specificationVersion: 'v1',
    id: rule.id,
    act: (state, { player }) => {
      const { own, other } = rpsRoundsOf(state, player);
      return rule.next(own, other);
    },
  };
}

/** `random`: a uniformly random throw every round (nothing to learn; a control). */
export function rpsRandomOpponent(): OpponentV1<RpsState, RpsThrow> {
  return { specificationVersion: 'v1', id: 'random', act: (_state, { rng }) => rng.pick(RPS_THROWS) };
}
