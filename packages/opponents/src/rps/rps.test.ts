import { createRng } from '@mage-rl/core';
import { createRps, RPS_THROWS, type RpsThrow, rpsGame } from '@mage-rl/envs/rps';
import { describe, expect, it } from 'vitest';
import { playMatch } from '../match/match';
import { POPULATION_PRESETS } from '../population/presets';
import { createOpponent, opponentRegistry } from '../registry/registry';
import { RPS_BOTS, RPS_OOD_BOTS, RPS_TRAINING_BOTS, type RpsBotRule } from './bots';
import { RpsPlanner, rpsCeiling, rpsPlayerLevels, ruleModel } from './ceiling';

/** The bot's throws against the agent's `mine`, one round at a time. */
function throwsOf(rule: RpsBotRule, mine: readonly RpsThrow[]): RpsThrow[] {
  const own: RpsThrow[] = [];
  mine.forEach((_, i) => {
    own.push(rule.next(own, mine.slice(0, i)));
  });
  return own;
}

const bot = (id: string) => RPS_BOTS.get(id)!;
const close = (actual: readonly number[], expected: readonly number[], digits = 12) => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((x, i) => {
    expect(x).toBeCloseTo(expected[i]!, digits);
  });
};
const members = (rules: readonly RpsBotRule[]) => rules.map((rule) => ({ rule, weight: 1 }));

describe('rps bots', () => {
  it('play their rules (golden sequences against rock, paper, paper, scissors)', () => {
    const mine: RpsThrow[] = ['rock', 'paper', 'paper', 'scissors'];
    const expected: Record<string, string> = {
      'constant-paper': 'paper paper paper paper',
      'cycle-rock': 'rock paper scissors rock',
      'cycle-back-rock': 'rock scissors paper rock',
      'beat-last-scissors': 'scissors paper scissors scissors',
      'copy-last-rock': 'rock rock paper paper',
      'lose-last-paper': 'paper scissors rock rock',
      'double-cycle-rock': 'rock rock paper paper',
      'beat-two-back-scissors': 'scissors scissors paper scissors',
      // rock vs rock draws: beat the other's rock; paper vs paper draws: scissors; scissors beats paper: stay.
      'win-stay-rock': 'rock paper scissors scissors',
      // Most frequent so far: rock; then rock and paper tie (rock first); then paper.
      'frequency-rock': 'rock paper paper scissors',
    };
    for (const [id, throws] of Object.entries(expected))
      expect(throwsOf(bot(id), mine).join(' ')).toBe(throws);
    // After a lost round win-stay shifts from its own throw, where beat-last answers the other's.
    expect(throwsOf(bot('win-stay-rock'), ['paper', 'rock', 'rock'])).toEqual(['rock', 'paper', 'paper']);
    expect(throwsOf(bot('beat-last-rock'), ['paper', 'rock', 'rock'])).toEqual(['rock', 'scissors', 'paper']);
  });

  it('18 training bots and 12 out-of-domain ones, every opening equally often; registry and presets', () => {
    expect(RPS_TRAINING_BOTS).toHaveLength(18);
    expect(RPS_OOD_BOTS).toHaveLength(12);
    for (const rules of [RPS_TRAINING_BOTS, RPS_OOD_BOTS]) {
      const openings = rules.map((r) => r.next([], []));
      for (const t of RPS_THROWS) expect(openings.filter((o) => o === t)).toHaveLength(rules.length / 3);
    }
    const reg = opponentRegistry('rps');
    expect(reg.ids).toHaveLength(31);
    expect(reg.ids.at(-1)).toBe('random');
    expect(POPULATION_PRESETS.rps.balanced?.map((e) => e.id)).toEqual(RPS_TRAINING_BOTS.map((r) => r.id));
    expect(POPULATION_PRESETS.rps.ood?.map((e) => e.id)).toEqual(RPS_OOD_BOTS.map((r) => r.id));
    expect(() => createOpponent('rps', 'cycle-lizard')).toThrow(/constant-rock/);
  });

  it('play from either seat of the game model (mage match) and in the env', () => {
    const result = playMatch({
      game: rpsGame(3),
      root: { throws: 3, played: [[], []] },
      agent: createOpponent('rps', 'beat-last-rock'),
      opponent: createOpponent('rps', 'constant-scissors'),
      games: 4,
      rng: createRng(1),
    });
    // beat-last-rock throws rock, rock, rock against scissors (whichever seat): 3 rounds won every game.
    expect(result.meanReturn).toBe(3);
    const ep = createRps().createEpisode({
      seed: 1,
      seat: 'first',
      style: 'compact',
      rng: createRng(1),
      opponent: createOpponent('rps', 'cycle-back-paper'),
    });
    ep.reset(0);
    const events = (['rock', 'rock', 'rock'] as const).map(
      (t) => ep.step(ep.parse(`<action> ${t} </action>`)).event,
    );
    expect(events).toEqual([
      'you rock opp paper loss',
      'you rock opp rock draw',
      'you rock opp scissors win',
    ]);
  });
});

describe('rps ceiling', () => {
  it('the training population: memoryless 4/9 per throw and 1/9 sweeps; the readers 4/9 → 26/27 → 1', () => {
    const ceiling = rpsCeiling({ population: members(RPS_TRAINING_BOTS), attempts: 3, throws: 3 });
    const { memoryless, myopic, bayes } = ceiling.mean;
    close(memoryless.score, [4 / 9, 4 / 9, 4 / 9]);
    close(memoryless.success, [1 / 9, 1 / 9, 1 / 9]);
    // Ties are broken at random, so the memoryless player sweeps a bot on a fresh draw every attempt.
    close(memoryless.passAtK, [1 / 9, 1 - (8 / 9) ** 2, 1 - (8 / 9) ** 3]);
    for (const reader of [myopic, bayes]) {
      close(reader.score, [4 / 9, 26 / 27, 1]);
      close(reader.success, [1 / 9, 8 / 9, 1]);
      close(reader.passAtK, [1 / 9, 8 / 9, 1]);
    }
    expect(ceiling.opponents).toHaveLength(18);
  });

  it('every training bot is met alike: the first throw a guess, the rest of the attempt partly read', () => {
    const ceiling = rpsCeiling({ population: members(RPS_TRAINING_BOTS), attempts: 3, throws: 3 });
    for (const { levels } of ceiling.opponents) {
      close(levels.memoryless.score, [4 / 9, 4 / 9, 4 / 9]);
      close(levels.bayes.score, [4 / 9, 26 / 27, 1]);
      close(levels.bayes.success, [1 / 9, 8 / 9, 1]);
    }
  });

  it('one throw per attempt: memoryless 1/3; a reader knows the opening after one attempt', () => {
    const ceiling = rpsCeiling({ population: members(RPS_TRAINING_BOTS), attempts: 3, throws: 1 });
    close(ceiling.mean.memoryless.score, [1 / 3, 1 / 3, 1 / 3]);
    close(ceiling.mean.bayes.score, [1 / 3, 1, 1]);
  });

  it('against a bot outside the population the belief stays as it was; random gives nothing to read', () => {
    const random = {
      id: 'random',
      throwProbabilities: () => [1 / 3, 1 / 3, 1 / 3],
    };
    const ceiling = rpsCeiling({
      population: members(RPS_TRAINING_BOTS),
      evaluate: [
        { model: random, weight: 1 },
        { model: ruleModel(bot('win-stay-rock')), weight: 1 },
      ],
      attempts: 3,
      throws: 3,
    });
    const levels = ceiling.opponents[0]!.levels;
    for (const player of ['memoryless', 'myopic', 'bayes'] as const) {
      close(levels[player].score, [1 / 3, 1 / 3, 1 / 3]);
      close(levels[player].success, [1 / 27, 1 / 27, 1 / 27]);
    }
    const planner = new RpsPlanner(members(RPS_TRAINING_BOTS), 3);
    const all = planner.everyone;
    // Rock then rock from an opponent that opened rock: constant-rock, copy-last-rock after rock, …
    const after = planner.update(all, [], 'rock');
    expect(after.length).toBe(6);
    // Of those, after the agent's paper only cycle-rock and copy-last-rock throw paper.
    expect(planner.update(after, [['paper', 'rock']], 'paper').map((i) => RPS_TRAINING_BOTS[i]!.id)).toEqual([
      'cycle-rock',
      'copy-last-rock',
    ]);
    expect(planner.update([0], [], 'paper')).toEqual([0]);
  });

  it('out of domain: its own prior reads it as well; the training prior falls short', () => {
    const ood = rpsCeiling({ population: members(RPS_OOD_BOTS), attempts: 3, throws: 3 }).mean;
    close(ood.memoryless.score, [5 / 9, 5 / 9, 5 / 9]);
    close(ood.memoryless.success, [1 / 12, 1 / 12, 1 / 12]);
    close(ood.bayes.score, [5 / 9, 11 / 12, 1]);
    close(ood.bayes.passAtK, [1 / 12, 3 / 4, 1]);
    const trained = rpsCeiling({
      population: members(RPS_TRAINING_BOTS),
      evaluate: RPS_OOD_BOTS.map((rule) => ({ model: ruleModel(rule), weight: 1 })),
      attempts: 3,
      throws: 3,
    });
    close(trained.mean.memoryless.score, [73 / 216, 73 / 216, 73 / 216]);
    close(trained.mean.bayes.score, [73 / 216, 5 / 8, 37 / 54]);
    close(trained.mean.bayes.passAtK, [1 / 36, 1 / 8, 5 / 36]);
    // win-stay plays like beat-last after a won or drawn round: the training prior reads it in part.
    const winStay = trained.opponents.find((o) => o.id === 'win-stay-rock')!.levels.bayes;
    close(winStay.score, [11 / 27, 7 / 9, 23 / 27]);
    const frequency = trained.opponents.find((o) => o.id === 'frequency-rock')!.levels.bayes;
    close(frequency.passAtK, [0, 0, 0]);
    const levels = rpsPlayerLevels(
      new RpsPlanner(members(RPS_OOD_BOTS), 3),
      'bayes',
      ruleModel(bot('frequency-paper')),
      3,
    );
    expect(levels.success[2]).toBeCloseTo(1, 12);
  });

  it('the Bayes reader never trails the myopic one in total, nor the myopic one the memoryless one', () => {
    const total = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
    for (const throws of [2, 4]) {
      const c = rpsCeiling({
        population: members([...RPS_TRAINING_BOTS, ...RPS_OOD_BOTS]),
        attempts: 2,
        throws,
      });
      const { bayes, myopic, memoryless } = c.mean;
      expect(total(bayes.score)).toBeGreaterThanOrEqual(total(myopic.score) - 1e-12);
      expect(total(myopic.score)).toBeGreaterThan(total(memoryless.score));
      // With four throws against both families, probing in the first attempt pays.
      if (throws === 4) expect(total(bayes.score)).toBeGreaterThan(total(myopic.score) + 1e-3);
    }
  });
});
