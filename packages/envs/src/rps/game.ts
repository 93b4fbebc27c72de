/**
 * The Rock-Paper-Scissors game model: two players throw at the same time, `throws` rounds per game. It is
 * laid out as alternating moves — player 0 throws, then player 1 — and player 1 sees the state through
 * `observe`, which hides player 0's throw of the round in progress, so both throw blind. Returns count the
 * rounds won minus the rounds lost.
 */

import { type GameModelV1, InvalidArgumentError, TERMINAL_PLAYER } from '@mage-rl/spec';

export const RPS_THROWS = ['rock', 'paper', 'scissors'] as const;
export type RpsThrow = (typeof RPS_THROWS)[number];

/** Fewest and most throws per game (per attempt of the env). */
export const RPS_MIN_THROWS = 1;
export const RPS_MAX_THROWS = 9;

export interface RpsState {
  /** Rounds per game. */
  readonly throws: number;
  /**
   * Each player's throws so far, player 0's first. Player 0's list is one longer than player 1's while
   * player 1 has still to throw in the round.
   */
  readonly played: readonly [readonly RpsThrow[], readonly RpsThrow[]];
}

/** The throw that beats `t`: paper beats rock, scissors beat paper, rock beats scissors. */
export function beats(t: RpsThrow): RpsThrow {
  return t === 'rock' ? 'paper' : t === 'paper' ? 'scissors' : 'rock';
}

/** The throw that `t` beats (the one that loses to it). */
export function losesTo(t: RpsThrow): RpsThrow {
  return t === 'rock' ? 'scissors' : t === 'paper' ? 'rock' : 'paper';
}

/** 1 when `mine` beats `theirs`, −1 when it loses to it, 0 for the same throw. */
export function roundScore(mine: RpsThrow, theirs: RpsThrow): 1 | 0 | -1 {
  return mine === theirs ? 0 : beats(theirs) === mine ? 1 : -1;
}

export function initialRpsState(throws: number): RpsState {
  if (!Number.isInteger(throws) || throws < RPS_MIN_THROWS || throws > RPS_MAX_THROWS) {
    throw new InvalidArgumentError(
      `Rock-Paper-Scissors needs ${RPS_MIN_THROWS}..${RPS_MAX_THROWS} throws per game, got ${String(throws)}.`,
    );
  }
  return { throws, played: [[], []] };
}

/** Rounds both players have thrown in. */
export const rpsRounds = (s: RpsState): number => s.played[1].length;

export const isRpsOver = (s: RpsState): boolean => rpsRounds(s) >= s.throws;

/** The player to throw: 0 opens each round, 1 answers it; terminal after the last round. */
function currentPlayer(s: RpsState): number {
  if (isRpsOver(s)) return TERMINAL_PLAYER;
  return s.played[0].length > s.played[1].length ? 1 : 0;
}

function applyRps(s: RpsState, t: RpsThrow): RpsState {
  const player = currentPlayer(s);
  if (player === TERMINAL_PLAYER) throw new InvalidArgumentError('Rock-Paper-Scissors: the game is over.');
  if (!RPS_THROWS.includes(t))
    throw new InvalidArgumentError(`Rock-Paper-Scissors: '${String(t)}' is no throw.`);
  const [p0, p1] = s.played;
  return { throws: s.throws, played: player === 0 ? [[...p0, t], p1] : [p0, [...p1, t]] };
}

/** `R`, `P` or `S`. */
const letter = (t: RpsThrow): string => t[0]!.toUpperCase();

/** `3:RP/SP`: the throws per game, then each player's throws. */
export function rpsKey(s: RpsState): string {
  return `${s.throws}:${s.played[0].map(letter).join('')}/${s.played[1].map(letter).join('')}`;
}

/** Player 0's rounds won minus rounds lost. */
function playerZeroScore(s: RpsState): number {
  let score = 0;
  s.played[1].forEach((t1, i) => {
    score += roundScore(s.played[0][i]!, t1);
  });
  return score;
}

const games = new Map<number, GameModelV1<RpsState, RpsThrow>>();

/** The game model of `throws` rounds (cached per count). */
export function rpsGame(throws: number): GameModelV1<RpsState, RpsThrow> {
  const cached = games.get(throws);
  if (cached) return cached;
  initialRpsState(throws);
  const game: GameModelV1<RpsState, RpsThrow> = {
    specificationVersion: 'v1',
    numPlayers: 2,
    currentPlayer,
    legalActions: (s) => (isRpsOver(s) ? [] : RPS_THROWS),
    apply: applyRps,
    isTerminal: isRpsOver,
    returns: (s) => {
      const score = playerZeroScore(s);
      return [score, -score];
    },
    // Player 1 does not see player 0's throw of the round in progress.
    observe: (s, player) =>
      player === 1 && s.played[0].length > s.played[1].length
        ? { throws: s.throws, played: [s.played[0].slice(0, s.played[1].length), s.played[1]] }
        : s,
    informationStateKey: (s, player) => `${player}|${rpsKey(game.observe?.(s, player) ?? s)}`,
    actionKey: (t) => t,
    stateKey: rpsKey,
  };
  games.set(throws, game);
  return game;
}
