import { createRng, type EnvV1, type OpponentV1, RolloutError, type Seat } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { createKuhnPoker } from '../kuhn-poker/env';
import type { KuhnAction, KuhnState } from '../kuhn-poker/game';
import { createTicTacToe } from '../tictactoe/env';
import { emptyCells, type TicTacToeAction, type TicTacToeState } from '../tictactoe/game';
import { seatPlayer } from './two-player-episode';

const SEED = 3;

interface Call {
  readonly key: string;
  readonly player: number;
}

/** The calls expected: each as the stream under `opponent` and the player asked to move. */
const expected = (...calls: [stream: string, player: number][]): Call[] =>
  calls.map(([stream, player]) => ({ key: createRng(SEED).split('opponent').split(stream).key, player }));

/** An opponent that plays `choose(state)` and records the rng stream and player of every call. */
function recording<S, A>(choose: (s: S) => A, calls: Call[]): OpponentV1<S, A> {
  return {
    specificationVersion: 'v1',
    id: 'recording',
    act: (s, { rng, player }) => {
      calls.push({ key: rng.key, player });
      return choose(s);
    },
  };
}

function start<S, A>(env: EnvV1<S, A>, seat: Seat, opponent: OpponentV1<S, A>) {
  return env.createEpisode({ seed: SEED, seat, style: 'compact', rng: createRng(SEED), opponent });
}

const firstEmpty = (s: TicTacToeState): TicTacToeAction => emptyCells(s)[0] ?? -1;

describe('two-player episodes', () => {
  it('seatPlayer: first is player 0, second player 1', () => {
    expect(seatPlayer('first')).toBe(0);
    expect(seatPlayer('second')).toBe(1);
  });

  it('Tic-Tac-Toe: the opening draws from opponent/reset, replies from opponent/attempt-k/turn-t', () => {
    const calls: Call[] = [];
    const ep = start(createTicTacToe(), 'second', recording(firstEmpty, calls));
    ep.reset(0);
    ep.step(ep.parse('<action> ( 3 , 3 ) </action>'));
    ep.reset(1);
    ep.step(ep.parse('<action> ( 3 , 3 ) </action>'));
    ep.step(ep.parse('<action> ( 3 , 2 ) </action>'));
    // The opening is made once, at construction; resets restore it.
    expect(calls).toEqual(
      expected(['reset', 0], ['attempt-0/turn-1', 0], ['attempt-1/turn-1', 0], ['attempt-1/turn-2', 0]),
    );
  });

  it('Kuhn Poker new-deal: each later attempt opens on opponent/reset/attempt-k', () => {
    const calls: Call[] = [];
    const ep = start(
      createKuhnPoker({ mode: 'new-deal' }),
      'second',
      recording<KuhnState, KuhnAction>(() => 'PASS', calls),
    );
    ep.reset(0);
    ep.reset(1);
    ep.reset(1);
    ep.reset(2);
    expect(calls).toEqual(expected(['reset', 0], ['reset/attempt-1', 0], ['reset/attempt-2', 0]));
  });

  it('Kuhn Poker: the agent sitting first is answered by player 1', () => {
    const calls: Call[] = [];
    const ep = start(
      createKuhnPoker(),
      'first',
      recording<KuhnState, KuhnAction>(() => 'BET', calls),
    );
    ep.reset(0);
    const step = ep.step(ep.parse('<action> PASS </action>'));
    expect(calls).toEqual(expected(['attempt-0/turn-1', 1]));
    expect(step.done).toBe(false);
  });

  it('an illegal opponent move is an OPPONENT_FAILURE naming the env’s move', () => {
    const ttt = () =>
      start(
        createTicTacToe(),
        'second',
        recording(() => 99, []),
      );
    expect(ttt).toThrow(RolloutError);
    expect(ttt).toThrow("Opponent 'recording' played an illegal move 99.");
    const kuhn = () =>
      start(
        createKuhnPoker(),
        'second',
        recording<KuhnState, KuhnAction>(() => 'deal:JQ', []),
      );
    expect(kuhn).toThrow("Opponent 'recording' played an illegal Kuhn action 'deal:JQ'.");
    try {
      kuhn();
    } catch (error) {
      expect(RolloutError.isInstance(error) && error.code).toBe('OPPONENT_FAILURE');
    }
  });
});
