import { describe, expect, it } from 'vitest';
import { createRng } from '../rng';
import { createNimEnv, nimGame, parseNimAction } from './nim';
import { firstLegalOpponent } from './scripted';

describe('nim reference env', () => {
  it('plays by the rules: taking the last stone wins', () => {
    const s = nimGame.apply({ stones: 2, toMove: 0, winner: null }, 2);
    expect(nimGame.isTerminal(s)).toBe(true);
    expect(nimGame.returns(s)).toEqual([1, -1]);
    expect(nimGame.legalActions({ stones: 1, toMove: 1, winner: null })).toEqual([1]);
  });

  it('parses the text only, and refuses taking more than is left when the turn is played', () => {
    expect(parseNimAction('<action> 1 </action>')).toEqual({ valid: true, action: 1, text: '1' });
    expect(parseNimAction('<action>2</action>')).toEqual({ valid: true, action: 2, text: '2' });
    expect(parseNimAction('take 1').valid).toBe(false);
    expect(parseNimAction('<action>3</action>').valid).toBe(false);
    const ep = threeStoneEpisode();
    ep.reset(0);
    ep.step(ep.parse('<action>1</action>')); // 3 -> 2 -> opponent takes 1 -> 1
    const parsed = ep.parse('<action>2</action>');
    expect(parsed.valid).toBe(true);
    const refused = ep.step(parsed);
    expect(refused).toMatchObject({
      valid: false,
      reward: 0,
      done: false,
      event: 'invalid: cannot take 2 from 1',
    });
    expect(ep.state).toEqual({ stones: 1, toMove: 0, winner: null });
    expect(ep.turn).toBe(2);
  });

  it('runs an episode with rewards and outcomes', () => {
    const ep = threeStoneEpisode();
    expect(ep.reset(0).text).toBe('pile 3');
    const s1 = ep.step(ep.parse('<action>2</action>')); // 3 -> 1, opponent takes the last stone
    expect(s1).toMatchObject({ done: true, reward: -1, outcome: { label: 'loss', success: false } });
    ep.reset(1);
    const s2 = ep.step(ep.parse('<action>1</action>')); // 3 -> 2 -> opponent takes 1 -> 1
    expect(s2.done).toBe(false);
    const s3 = ep.step(ep.parse('<action>1</action>'));
    expect(s3).toMatchObject({ done: true, reward: 1, outcome: { label: 'win', success: true } });
  });
});

/** An episode on a pile of 3 against the opponent that takes 1. */
function threeStoneEpisode() {
  return createNimEnv({ minStones: 3, maxStones: 3 }).createEpisode({
    seed: 1,
    seat: 'first',
    style: 'compact',
    rng: createRng(1),
    opponent: firstLegalOpponent(nimGame),
  });
}
