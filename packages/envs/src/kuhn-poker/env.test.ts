import { ConfigError, createRng, type OpponentV1, type Seat } from '@mage-rl/core';
import { GARBAGE_RESPONSES, randomLegalOpponent } from '@mage-rl/core/testing';
import { describeEnvConformance } from '@mage-rl/core/testing/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKuhnPoker, type KuhnPokerOptions } from './env';
import { type KuhnAction, type KuhnCard, type KuhnState, kuhnCardRank, kuhnGame } from './game';
import { parseKuhnAction, parseKuhnEvent } from './text';

const random = randomLegalOpponent(kuhnGame);
describeEnvConformance('kuhn-poker same-deal', () => createKuhnPoker(), { opponent: random });
describeEnvConformance('kuhn-poker new-deal', () => createKuhnPoker({ mode: 'new-deal' }), {
  opponent: random,
  restartIdentity: false,
});

function always(action: 'PASS' | 'BET', seen: KuhnState[] = []): OpponentV1<KuhnState, KuhnAction> {
  return {
    specificationVersion: 'v1',
    id: `always-${action}`,
    act: (s) => {
      seen.push(s);
      return action;
    },
  };
}

function episode(
  seat: Seat,
  opponent: OpponentV1<KuhnState, KuhnAction>,
  seed = 1,
  options: KuhnPokerOptions = {},
) {
  return createKuhnPoker(options).createEpisode({
    seed,
    seat,
    style: 'verbose',
    rng: createRng(seed),
    opponent,
  });
}

const beats = (a: KuhnCard, b: KuhnCard) => kuhnCardRank(a) > kuhnCardRank(b);

describe('kuhn-poker env', () => {
  it('bet into a fold wins 1 chip = +5 with no showdown to reveal', () => {
    const ep = episode('first', always('PASS'));
    ep.reset(0);
    const s = ep.step(ep.parse('<action>BET</action>'));
    expect(s).toMatchObject({ valid: true, done: true, reward: 5, outcome: { label: 'win', success: true } });
    expect(s.event).toBe('You bet; the opponent folded. You won 1 chip.');
    expect(ep.reveal()).toBeUndefined();
  });

  it('check-check goes to showdown for ±5 and reveal() shows both cards', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const ep = episode('first', always('PASS'), seed);
      ep.reset(0);
      const s = ep.step(ep.parse('<action>pass</action>'));
      const [mine, theirs] = ep.state.cards as [KuhnCard, KuhnCard];
      expect(s.reward).toBe(beats(mine, theirs) ? 5 : -5);
      expect(s.outcome?.success).toBe(beats(mine, theirs));
      expect(ep.reveal()).toBe(`Showdown: you had ${mine}, the opponent had ${theirs}.`);
      expect(episode('first', always('PASS'), seed, { revealShowdown: false }).reveal()).toBeUndefined();
    }
  });

  it('from the second seat the opponent opens at reset; calling a bet is a 2-chip showdown (±10)', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const seen: KuhnState[] = [];
      const ep = episode('second', always('BET', seen), seed);
      const obs = ep.reset(0);
      expect(obs.info.history).toBe('b');
      expect(obs.text).toContain('Betting so far: the opponent bet.');
      const s = ep.step(ep.parse('<action>BET</action>'));
      const theirs = ep.state.cards?.[0] as KuhnCard;
      const mine = ep.state.cards?.[1] as KuhnCard;
      expect(s.reward).toBe(beats(mine, theirs) ? 10 : -10);
      // the opponent only ever saw its own card
      for (const st of seen) expect(st.cards?.[1]).toBeNull();
    }
  });

  it('folding to a bet loses 1 chip (-5)', () => {
    const ep = episode('second', always('BET'));
    ep.reset(0);
    expect(ep.step(ep.parse('<action>PASS</action>'))).toMatchObject({
      reward: -5,
      outcome: { label: 'loss' },
    });
  });

  it('check, opponent bets, agent calls: pbb showdown', () => {
    const ep = episode('first', always('BET'), 3);
    ep.reset(0);
    const s1 = ep.step(ep.parse('<action>PASS</action>'));
    expect(s1).toMatchObject({ done: false, reward: 0 });
    expect(s1.observation.anchor).toBe(`kuhn-poker:${ep.state.cards?.[0]}:pb`);
    const s2 = ep.step(ep.parse('<action>BET</action>'));
    expect(ep.state.history).toBe('pbb');
    expect(Math.abs(s2.reward)).toBe(10);
  });

  it('invalid answers waste turns; six of them truncate the hand with reward 0', () => {
    const ep = episode('first', always('PASS'));
    ep.reset(0);
    let last = ep.step(ep.parse('<action>CALL</action>'));
    expect(last).toMatchObject({ valid: false, reward: 0 });
    while (!ep.done) last = ep.step(ep.parse('I fold'));
    expect(ep.turn).toBe(6);
    expect(last.outcome).toMatchObject({ label: 'truncated', truncated: true });
  });

  it("truncation 'loss' scores a stalled hand as a fold (−chipReward on its last turn)", () => {
    const ep = episode('first', always('PASS'), 1, { truncation: 'loss' });
    ep.reset(0);
    const rewards: number[] = [];
    while (!ep.done) rewards.push(ep.step(ep.parse('I fold')).reward);
    expect(rewards).toEqual([0, 0, 0, 0, 0, -5]);
    expect(ep.done).toBe(true);
  });

  it('same-deal replays the deal; new-deal deals per attempt (attempt 0 as in same-deal)', () => {
    const dealsOf = (mode: 'same-deal' | 'new-deal', seed: number) => {
      const ep = episode('first', always('PASS'), seed, { mode });
      return [0, 1, 2, 3, 1].map((k) => {
        ep.reset(k);
        return (ep.state.cards ?? []).join('');
      });
    };
    let varied = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const same = dealsOf('same-deal', seed);
      const fresh = dealsOf('new-deal', seed);
      expect(new Set(same).size).toBe(1);
      expect(fresh[0]).toBe(same[0]);
      expect(fresh[4]).toBe(fresh[1]);
      if (new Set(fresh).size > 1) varied++;
    }
    expect(varied).toBeGreaterThan(5);
  });

  it('compact text uses a small fixed vocabulary', () => {
    const ep = createKuhnPoker().createEpisode({
      seed: 1,
      seat: 'second',
      style: 'compact',
      rng: createRng(1),
      opponent: always('BET'),
    });
    expect(ep.reset(0).text).toMatch(/^card [JQK]\nhistory opp BET$/);
    const s = ep.step(ep.parse('<action> BET </action>'));
    expect(s.event).toMatch(/^opp BET you BET \. you [+-]2$/);
    expect(parseKuhnEvent(s.event)).toEqual({ history: 'bb', chips: s.reward / 5 });
    expect(ep.reveal()).toMatch(/^showdown you [JQK] opp [JQK]$/);
  });

  it("a hand's history lines hold its whole betting and its chips, in both styles and seats", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom<Seat>('first', 'second'),
        fc.constantFrom('compact' as const, 'verbose' as const),
        fc.array(fc.constantFrom<KuhnAction>('PASS', 'BET'), { minLength: 2, maxLength: 2 }),
        (seed, seat, style, mine) => {
          const ep = createKuhnPoker().createEpisode({
            seed,
            seat,
            style,
            rng: createRng(seed),
            opponent: randomLegalOpponent(kuhnGame, 'r'),
          });
          let obs = ep.reset(0);
          const events: string[] = [];
          let reward = 0;
          for (const action of mine) {
            const step = ep.step(ep.parse(`<action>${action}</action>`));
            events.push(step.event);
            reward += step.reward;
            obs = step.observation;
            if (step.done) break;
          }
          const facts = events.map(parseKuhnEvent);
          expect(facts.map((f) => f.history).join('')).toBe(obs.info.history);
          expect(facts.at(-1)?.chips).toBe(reward / 5);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('validates options', () => {
    expect(() => createKuhnPoker({ mode: 'fresh' as never })).toThrow(ConfigError);
    expect(() => createKuhnPoker({ mode: 'fresh' as never })).toThrow(
      /kuhn-poker\.mode.*"same-deal", "new-deal"/,
    );
    expect(createKuhnPoker().options).toEqual({
      mode: 'same-deal',
      revealShowdown: true,
      maxTurns: 6,
      chipReward: 5,
      truncation: 'zero',
    });
  });
});

describe('kuhn parser', () => {
  it('accepts exactly PASS or BET in any letter case inside the first action block', () => {
    expect(parseKuhnAction('<action>BET</action>')).toEqual({ valid: true, action: 'BET', text: 'BET' });
    expect(parseKuhnAction('I think <action> pass </action>')).toMatchObject({ valid: true, action: 'PASS' });
    expect(parseKuhnAction('<action>Bet</action><action>PASS</action>')).toMatchObject({ action: 'BET' });
    for (const bad of [
      '<action>PASS BET</action>',
      '<action>call</action>',
      '<action>paß</action>',
      'BET',
      '<action>BET',
    ]) {
      expect(parseKuhnAction(bad).valid).toBe(false);
    }
    for (const g of GARBAGE_RESPONSES) expect(parseKuhnAction(g).valid).toBe(false);
  });

  it('never throws on arbitrary text (property)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .tuple(fc.string(), fc.constantFrom('PASS', 'bet', 'BeT', ' pass\n', 'BETS'), fc.string())
        .map(([a, b, c]) => `${a}<action>${b}</action>${c}`),
      fc.string().map((a) => `<action><action>${a}</action></action>`),
      fc.nat({ max: 300_000 }).map((n) => `${'<action>'.repeat(n % 100)}${'BET'.repeat(n)}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        const r = parseKuhnAction(t);
        if (r.valid) expect(['PASS', 'BET']).toContain(r.action);
        else expect(r.reason.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('kuhn-poker opponents', () => {
  it('an opponent answering a non-betting action is an OPPONENT_FAILURE', () => {
    const bad: OpponentV1<KuhnState, KuhnAction> = {
      specificationVersion: 'v1',
      id: 'bad',
      act: () => 'deal:JQ',
    };
    expect(() => episode('second', bad)).toThrow(expect.objectContaining({ code: 'OPPONENT_FAILURE' }));
  });
});
