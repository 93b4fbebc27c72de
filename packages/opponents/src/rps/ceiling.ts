/**
 * Exact reference levels of Rock-Paper-Scissors against hidden-rule bots (`mage adaptation-ceiling rps`):
 * the opponent is drawn once from a population of deterministic rules with prior weights and plays every
 * attempt of the meta-episode, its state reset at each. Three players, evaluated by enumerating every
 * branch (the bot's throws, the player's tie-breaks) — no sampling:
 *
 * - memoryless: the best response to the prior within one attempt (it reads the attempt's rounds, never an
 *   earlier attempt): the cap of any policy that does not read its notes;
 * - myopic: the same best response to the belief left by every earlier round of the meta-episode;
 * - bayes: maximises the expected wins of the current attempt and every later one (it may probe).
 *
 * The belief is the set of members whose rule explains every round seen (weighted by the prior); a round
 * no member explains (an opponent outside the population) leaves it unchanged. Ties between throws of
 * equal value (for bayes: equal over the plan, then equal in the current attempt) are broken uniformly at
 * random. See architecture/opponents.md.
 */

import { RPS_THROWS, type RpsThrow, roundScore } from '@mage-rl/envs/rps';
import { InvalidArgumentError } from '@mage-rl/spec';
import type { RpsBotRule } from './bots';

export const RPS_PLAYERS = ['memoryless', 'myopic', 'bayes'] as const;
export type RpsPlayer = (typeof RPS_PLAYERS)[number];

/** A population member: a deterministic rule and its prior weight. */
export interface RpsMember {
  readonly rule: RpsBotRule;
  readonly weight: number;
}

/** An opponent to evaluate against: the probability of each throw (rock, paper, scissors) after the rounds. */
export interface RpsOpponentModel {
  readonly id: string;
  throwProbabilities(own: readonly RpsThrow[], other: readonly RpsThrow[]): readonly number[];
}

/** A rule as an opponent model (all its probability on its throw). */
export function ruleModel(rule: RpsBotRule): RpsOpponentModel {
  return {
    id: rule.id,
    throwProbabilities: (own, other) => {
      const t = rule.next(own, other);
      return RPS_THROWS.map((x) => (x === t ? 1 : 0));
    },
  };
}

/** Attempt k's levels (index k − 1), each over the meta-episodes against one opponent or a mix. */
export interface RpsLevels {
  /** Wins per throw (a draw and a loss score 0). */
  readonly score: readonly number[];
  /** The chance that the attempt wins every throw (the env's success). */
  readonly success: readonly number[];
  /** The chance that some attempt up to k won every throw (pass@k). */
  readonly passAtK: readonly number[];
}

type Round = readonly [mine: RpsThrow, theirs: RpsThrow];

const EPS = 1e-12;
const win = (mine: RpsThrow, theirs: RpsThrow): number => (roundScore(mine, theirs) > 0 ? 1 : 0);
const roundsKey = (rounds: readonly Round[]): string => rounds.map(([m, t]) => `${m[0]}${t[0]}`).join('');

/**
 * The planner over a population: the value of each throw given the belief (member indices), the rounds
 * of the attempt so far and the attempts it plans for (the current one included). Memoised.
 */
export class RpsPlanner {
  private readonly memo = new Map<string, readonly number[]>();
  private readonly members: readonly RpsMember[];
  readonly throws: number;

  constructor(members: readonly RpsMember[], throws: number) {
    if (members.length === 0) throw new InvalidArgumentError('The population has no member.');
    if (members.some((m) => !(m.weight > 0))) {
      throw new InvalidArgumentError('Every population member needs a positive weight.');
    }
    this.members = members;
    this.throws = throws;
  }

  /** Every member index: the prior's belief. */
  get everyone(): readonly number[] {
    return this.members.map((_, i) => i);
  }

  /** The members of `belief` whose rule throws `theirs` after `rounds`; `belief` itself when none does. */
  update(belief: readonly number[], rounds: readonly Round[], theirs: RpsThrow): readonly number[] {
    const kept = belief.filter((i) => this.nextOf(i, rounds) === theirs);
    return kept.length > 0 ? kept : belief;
  }

  /** The expected wins of the rest of the plan for each throw (rock, paper, scissors). */
  values(belief: readonly number[], rounds: readonly Round[], horizon: number): readonly number[] {
    const key = `${belief.join(',')}|${roundsKey(rounds)}|${horizon}`;
    const memo = this.memo.get(key);
    if (memo) return memo;
    const groups = new Map<RpsThrow, number[]>();
    let total = 0;
    for (const i of belief) {
      const t = this.nextOf(i, rounds);
      groups.set(t, [...(groups.get(t) ?? []), i]);
      total += this.members[i]!.weight;
    }
    const values = RPS_THROWS.map((mine) => {
      let v = 0;
      for (const [theirs, group] of groups) {
        const p = group.reduce((s, i) => s + this.members[i]!.weight, 0) / total;
        v += p * (win(mine, theirs) + this.rest(group, [...rounds, [mine, theirs]], horizon));
      }
      return v;
    });
    this.memo.set(key, values);
    return values;
  }

  /**
   * The throws of the highest value (within 1e-12, in rock, paper, scissors order); with a longer horizon,
   * of those the ones that earn most in the current attempt, so a planner probes only when probing pays.
   */
  bestThrows(belief: readonly number[], rounds: readonly Round[], horizon: number): RpsThrow[] {
    const top = (values: readonly number[], among: readonly number[]) => {
      const best = Math.max(...among.map((i) => values[i] ?? 0));
      return among.filter((i) => (values[i] ?? 0) >= best - EPS);
    };
    let best = top(this.values(belief, rounds, horizon), [0, 1, 2]);
    if (horizon > 1 && best.length > 1) best = top(this.values(belief, rounds, 1), best);
    return best.map((i) => RPS_THROWS[i] ?? 'rock');
  }

  /** The value after `rounds`: the attempt goes on, or the next one starts (belief kept) within the horizon. */
  private rest(belief: readonly number[], rounds: readonly Round[], horizon: number): number {
    if (rounds.length < this.throws) return Math.max(...this.values(belief, rounds, horizon));
    return horizon > 1 ? Math.max(...this.values(belief, [], horizon - 1)) : 0;
  }

  private nextOf(member: number, rounds: readonly Round[]): RpsThrow {
    return this.members[member]!.rule.next(
      rounds.map(([, theirs]) => theirs),
      rounds.map(([mine]) => mine),
    );
  }
}

/** Per-attempt accumulators of one evaluation. */
interface Tally {
  score: number;
  success: number;
}

/** The levels of `player` against `opponent` over `attempts` attempts, exact. */
export function rpsPlayerLevels(
  planner: RpsPlanner,
  player: RpsPlayer,
  opponent: RpsOpponentModel,
  attempts: number,
): RpsLevels {
  const T = planner.throws;
  // The distribution over (belief, passed) at the start of each attempt.
  let states = new Map<string, { belief: readonly number[]; passed: boolean; p: number }>([
    ['start', { belief: planner.everyone, passed: false, p: 1 }],
  ]);
  const score: number[] = [];
  const success: number[] = [];
  const passAtK: number[] = [];
  for (let k = 0; k < attempts; k++) {
    const horizon = player === 'bayes' ? attempts - k : 1;
    const next = new Map<string, { belief: readonly number[]; passed: boolean; p: number }>();
    const tally: Tally = { score: 0, success: 0 };
    const play = (p: number, belief: readonly number[], rounds: Round[], wins: number, passed: boolean) => {
      if (rounds.length === T) {
        tally.score += (p * wins) / T;
        const swept = wins === T;
        if (swept) tally.success += p;
        const key = `${belief.join(',')}|${passed || swept}`;
        const entry = next.get(key);
        if (entry) entry.p += p;
        else next.set(key, { belief, passed: passed || swept, p });
        return;
      }
      const mine = planner.bestThrows(belief, rounds, horizon);
      const probabilities = opponent.throwProbabilities(
        rounds.map(([, t]) => t),
        rounds.map(([m]) => m),
      );
      RPS_THROWS.forEach((theirs, j) => {
        const q = probabilities[j] ?? 0;
        if (q <= 0) return;
        const after = planner.update(belief, rounds, theirs);
        for (const m of mine) {
          play((p * q) / mine.length, after, [...rounds, [m, theirs]], wins + win(m, theirs), passed);
        }
      });
    };
    for (const s of states.values()) {
      play(s.p, player === 'memoryless' ? planner.everyone : s.belief, [], 0, s.passed);
    }
    states = next;
    score.push(tally.score);
    success.push(tally.success);
    passAtK.push([...next.values()].reduce((sum, s) => sum + (s.passed ? s.p : 0), 0));
  }
  return { score, success, passAtK };
}

export interface RpsCeilingOptions {
  /** The population the opponent is drawn from: the players' prior. */
  readonly population: readonly RpsMember[];
  /** The opponents to evaluate against, with the weights of their mean. Default: the population's rules. */
  readonly evaluate?: readonly { readonly model: RpsOpponentModel; readonly weight: number }[];
  readonly attempts: number;
  /** Throws per attempt. */
  readonly throws: number;
}

export interface RpsCeiling {
  /** Per evaluated opponent, each player's levels. */
  readonly opponents: readonly {
    readonly id: string;
    readonly weight: number;
    readonly levels: Readonly<Record<RpsPlayer, RpsLevels>>;
  }[];
  /** Each player's levels averaged over the evaluated opponents by their weights (the prior by default). */
  readonly mean: Readonly<Record<RpsPlayer, RpsLevels>>;
}

function weightedMean(parts: readonly { weight: number; levels: RpsLevels }[]): RpsLevels {
  const total = parts.reduce((s, x) => s + x.weight, 0);
  const mean = (field: keyof RpsLevels) =>
    (parts[0]?.levels[field] ?? []).map(
      (_, k) => parts.reduce((s, x) => s + x.weight * (x.levels[field][k] ?? 0), 0) / total,
    );
  return { score: mean('score'), success: mean('success'), passAtK: mean('passAtK') };
}

/** The three players' exact levels, per evaluated opponent and averaged. */
export function rpsCeiling(options: RpsCeilingOptions): RpsCeiling {
  const { population, attempts, throws } = options;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new InvalidArgumentError(`attempts must be a positive integer, got ${String(attempts)}.`);
  }
  const planner = new RpsPlanner(population, throws);
  const evaluate =
    options.evaluate ?? population.map((m) => ({ model: ruleModel(m.rule), weight: m.weight }));
  if (evaluate.length === 0 || evaluate.some((e) => !(e.weight > 0))) {
    throw new InvalidArgumentError('Evaluate against at least one opponent, each with a positive weight.');
  }
  const opponents = evaluate.map(({ model, weight }) => ({
    id: model.id,
    weight,
    levels: Object.fromEntries(
      RPS_PLAYERS.map((player) => [player, rpsPlayerLevels(planner, player, model, attempts)]),
    ) as Record<RpsPlayer, RpsLevels>,
  }));
  const mean = Object.fromEntries(
    RPS_PLAYERS.map((player) => [
      player,
      weightedMean(opponents.map((o) => ({ weight: o.weight, levels: o.levels[player] }))),
    ]),
  ) as Record<RpsPlayer, RpsLevels>;
  return { opponents, mean };
}
