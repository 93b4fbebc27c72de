import { ConfigError, createRng, type OpponentV1 } from '@mage-rl/core';
import { describeEnvConformance } from '@mage-rl/core/testing/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRps, type RpsOptions } from './env';
import {
  beats,
  initialRpsState,
  losesTo,
  RPS_THROWS,
  type RpsState,
  type RpsThrow,
  roundScore,
  rpsGame,
} from './game';
import { parseRpsAction, parseRpsEvent, renderRps, rpsEvent, rpsRoundsLine } from './text';

describeEnvConformance('rps 3 throws', () => createRps());
describeEnvConformance('rps 1 throw, seat first', () => createRps({ maxTurns: 1 }), { seats: ['first'] });

/** A bot that throws what beats the agent's last throw (rock first), recording what it was shown. */
function beatLast(seen: RpsState[] = []): OpponentV1<RpsState, RpsThrow> {
  return {
    specificationVersion: 'v1',
    id: 'beat-last-rock',
    act: (state, { player }) => {
      seen.push(state);
      const theirs = state.played[1 - player]!;
      const last = theirs[theirs.length - 1];
      return last === undefined ? 'rock' : beats(last);
    },
  };
}

function episode(
  options: RpsOptions = {},
  style: 'compact' | 'verbose' = 'compact',
  opponent = beatLast(),
  seat: 'first' | 'second' = 'first',
) {
  return createRps(options).createEpisode({ seed: 1, seat, style, rng: createRng(1), opponent });
}

const throwText = (t: RpsThrow) => `<action> ${t} </action>`;

describe('rps rules', () => {
  it('beats and losesTo form the cycle rock < paper < scissors < rock', () => {
    expect(RPS_THROWS.map(beats)).toEqual(['paper', 'scissors', 'rock']);
    expect(RPS_THROWS.map(losesTo)).toEqual(['scissors', 'rock', 'paper']);
    for (const a of RPS_THROWS) {
      expect(roundScore(beats(a), a)).toBe(1);
      expect(roundScore(a, beats(a))).toBe(-1);
      expect(roundScore(a, a)).toBe(0);
    }
  });

  it('scores 10 per throw won (draws and losses 0); an attempt that wins every throw is a win', () => {
    const ep = episode();
    ep.reset(0);
    // The bot opens rock, then beats the agent's last throw: rock, then paper after rock, …
    const one = ep.step(ep.parse(throwText('paper')));
    expect(one).toMatchObject({ reward: 10, done: false, event: 'you paper opp rock win' });
    expect(one.observation.text).toBe('throw 2 of 3 . you paper opp rock win');
    expect(one.observation.info).toEqual({ throws: 3, you: ['paper'], opp: ['rock'] });
    // It now throws scissors (beats paper): rock wins.
    const two = ep.step(ep.parse(throwText('rock')));
    expect(two).toMatchObject({ reward: 10, event: 'you rock opp scissors win' });
    const three = ep.step(ep.parse(throwText('scissors')));
    expect(three).toMatchObject({ reward: 10, done: true, event: 'you scissors opp paper win' });
    expect(three.outcome).toMatchObject({ success: true, label: 'win' });

    ep.reset(1);
    expect(ep.step(ep.parse(throwText('rock')))).toMatchObject({
      reward: 0,
      event: 'you rock opp rock draw',
    });
    expect(ep.step(ep.parse(throwText('paper')))).toMatchObject({
      reward: 0,
      event: 'you paper opp paper draw',
    });
    const last = ep.step(ep.parse(throwText('rock')));
    expect(last).toMatchObject({
      reward: 10,
      event: 'you rock opp scissors win',
      outcome: { label: 'loss' },
    });
  });

  it('two wins and a draw are a loss of the attempt, scored 20', () => {
    const ep = episode();
    ep.reset(0);
    const steps = (['paper', 'rock', 'paper'] as const).map((t) => ep.step(ep.parse(throwText(t))));
    expect(steps.map((s) => s.event)).toEqual([
      'you paper opp rock win',
      'you rock opp scissors win',
      'you paper opp paper draw',
    ]);
    expect(steps.reduce((sum, s) => sum + s.reward, 0)).toBe(20);
    expect(steps[2]?.outcome).toMatchObject({ success: false, draw: false, label: 'loss' });
  });

  it('the opponent throws blind: it never sees the agent’s throw of the round', () => {
    const seen: RpsState[] = [];
    const ep = episode({}, 'compact', beatLast(seen));
    ep.reset(0);
    ep.step(ep.parse(throwText('scissors')));
    ep.step(ep.parse(throwText('paper')));
    expect(seen.map((s) => s.played)).toEqual([
      [[], []],
      [['scissors'], ['rock']],
    ]);
  });

  it('every attempt restarts the game, and so the bot: the same throws get the same answers', () => {
    const ep = episode();
    const play = (attempt: number) => {
      ep.reset(attempt);
      return (['scissors', 'scissors', 'rock'] as const).map((t) => ep.step(ep.parse(throwText(t))).event);
    };
    const first = play(0);
    expect(first).toEqual([
      'you scissors opp rock loss',
      'you scissors opp rock loss',
      'you rock opp rock draw',
    ]);
    expect(play(1)).toEqual(first);
    expect(ep.reset(2)).toEqual({
      text: 'throw 1 of 3',
      anchor: 'rps:3:/',
      info: { throws: 3, you: [], opp: [] },
    });
  });

  it('an invalid answer forfeits the throw: nothing changes, and the attempt ends truncated', () => {
    const ep = episode({ maxTurns: 2 });
    ep.reset(0);
    expect(ep.parse('<action>lizard</action>').valid).toBe(false);
    const bad = ep.step(ep.parse('<action>lizard</action>'));
    expect(bad).toMatchObject({ valid: false, reward: 0, done: false, event: 'invalid' });
    const last = ep.step(ep.parse(throwText('paper')));
    expect(last).toMatchObject({ reward: 10, done: true, outcome: { label: 'truncated', success: false } });
  });

  it('a finished attempt reveals its rounds on one line, in order: its final state as rendered', () => {
    const ep = episode();
    ep.reset(0);
    const steps = (['paper', 'rock'] as const).map((t) => ep.step(ep.parse(throwText(t))));
    expect(ep.reveal()).toBeUndefined();
    const last = ep.step(ep.parse(throwText('paper')));
    const line = 'end . you paper opp rock win . you rock opp scissors win . you paper opp paper draw';
    expect(ep.reveal()).toBe(line);
    expect(last.observation.text).toBe(line);
    expect(line).toContain([...steps, last].map((s) => s.event).join(' . '));
    // The next attempt reveals nothing until it is over.
    ep.reset(1);
    expect(ep.reveal()).toBeUndefined();

    const verbose = episode({ maxTurns: 2 }, 'verbose');
    verbose.reset(0);
    verbose.step(verbose.parse(throwText('paper')));
    verbose.step(verbose.parse(throwText('rock')));
    expect(verbose.reveal()).toBe(
      "This attempt's throws: You threw paper, the opponent threw rock: you win. You threw rock, the opponent threw scissors: you win.",
    );
  });

  it('an attempt cut short by invalid answers reveals the rounds it played, or nothing', () => {
    const ep = episode({ maxTurns: 2 });
    ep.reset(0);
    ep.step(ep.parse('<action>lizard</action>'));
    ep.step(ep.parse(throwText('scissors')));
    expect(ep.done).toBe(true);
    expect(ep.reveal()).toBe('end . you scissors opp rock loss');
    ep.reset(1);
    ep.step(ep.parse('nothing'));
    ep.step(ep.parse('nothing'));
    expect(ep.reveal()).toBeUndefined();
    expect(rpsRoundsLine({ throws: 2, played: [[], []] }, 'compact')).toBeUndefined();
  });

  it('the seat changes nothing: both throw at once', () => {
    const play = (seat: 'first' | 'second') => {
      const ep = episode({}, 'compact', beatLast(), seat);
      ep.reset(0);
      return (['rock', 'paper', 'scissors'] as const).map((t) => ep.step(ep.parse(throwText(t))));
    };
    expect(play('second')).toEqual(play('first'));
  });

  it('the game model: returns count rounds won minus lost; player 1 sees no pending throw', () => {
    const game = rpsGame(2);
    let s = initialRpsState(2);
    expect(game.currentPlayer(s)).toBe(0);
    s = game.apply(s, 'rock');
    expect(game.currentPlayer(s)).toBe(1);
    expect(game.observe?.(s, 1)).toEqual({ throws: 2, played: [[], []] });
    expect(game.informationStateKey?.(s, 1)).toBe('1|2:/');
    s = game.apply(game.apply(game.apply(s, 'scissors'), 'rock'), 'rock');
    expect(game.isTerminal(s)).toBe(true);
    expect(game.returns(s)).toEqual([1, -1]);
    expect(game.stateKey(s)).toBe('2:RR/SR');
    expect(() => game.apply(s, 'rock')).toThrow(/over/);
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    expect(() => createRps({ maxTurns: 0 })).toThrow(ConfigError);
    expect(() => createRps({ maxTurns: 10 })).toThrow(/rps\.maxTurns/);
    expect(() => createRps({ throws: 3 } as never)).toThrow(/Unknown option/);
  });
});

describe('rps text', () => {
  it('compact and verbose faces (golden)', () => {
    const compact = episode();
    expect(compact.rules()).toBe(
      'rock paper scissors . 3 throws . rock beats scissors . scissors beats paper . paper beats rock . win every throw . answer <action> throw </action>',
    );
    expect(compact.initialText()).toBe('throw 1 of 3');
    const verbose = episode({ maxTurns: 2 }, 'verbose');
    expect(verbose.rules()).toBe(
      [
        'You play rock-paper-scissors against an opponent, 2 throws per attempt; you both throw at the same time.',
        'Rock beats scissors, scissors beat paper, paper beats rock; the same throw is a draw.',
        'The opponent follows a fixed rule that may depend on the throws so far in the attempt. It starts afresh in every attempt and its rule stays the same in every attempt.',
        'Each throw you win scores 10; the attempt is won when you win every throw.',
        'Answer with one throw inside action tags, for example <action>rock</action>.',
      ].join('\n'),
    );
    expect(verbose.initialText()).toBe('Throw 1 of 2. No throws yet in this attempt.');
    verbose.reset(0);
    const step = verbose.step(verbose.parse('<action>Rock</action>'));
    expect(step.event).toBe('You threw rock, the opponent threw rock: a draw.');
    expect(step.observation.text).toBe(
      'Throw 2 of 2. So far: You threw rock, the opponent threw rock: a draw.',
    );
    const state: RpsState = {
      throws: 2,
      played: [
        ['rock', 'paper'],
        ['scissors', 'scissors'],
      ],
    };
    expect(renderRps(state, 'compact')).toBe('end . you rock opp scissors win . you paper opp scissors loss');
    expect(rpsEvent('paper', 'scissors', 'verbose')).toBe(
      'You threw paper, the opponent threw scissors: you lose.',
    );
  });

  it('parses one throw (word or letter, any case) and nothing else; never throws', () => {
    expect(parseRpsAction('<action> scissors </action>')).toEqual({
      valid: true,
      action: 'scissors',
      text: 'scissors',
    });
    expect(parseRpsAction('I go <action>P</action>')).toMatchObject({ action: 'paper' });
    expect(parseRpsAction('<action>rock paper</action>').valid).toBe(false);
    expect(parseRpsAction('<action>rocks</action>').valid).toBe(false);
    expect(parseRpsAction('rock').valid).toBe(false);
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseRpsAction(text);
        if (parsed.valid) expect(RPS_THROWS).toContain(parsed.action);
      }),
    );
  });

  it('reads its own lines back in both styles', () => {
    for (const mine of RPS_THROWS) {
      for (const theirs of RPS_THROWS) {
        for (const style of ['compact', 'verbose'] as const) {
          expect(parseRpsEvent(rpsEvent(mine, theirs, style))).toEqual({ mine, theirs });
        }
      }
    }
    expect(parseRpsEvent('invalid')).toBeNull();
  });
});
