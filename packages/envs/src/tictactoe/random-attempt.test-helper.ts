/**
 * For the property tests of the event lines and the reveal: a 3×3 attempt played to its end with random
 * cells — now and then a taken one, an invalid move whose line reports no move — against the random legal
 * opponent, and the board that move lines rebuild.
 */

import { createRng } from '@mage-rl/core';
import { randomLegalOpponent } from '@mage-rl/core/testing';
import type { createTicTacToe } from './env';
import { ticTacToeGame } from './game';
import { parseTicTacToeEvent } from './text';

/** The board of an observation as one string of 9 cells (`X`, `O`, `.`). */
const boardOf = (observation: { readonly info: Readonly<Record<string, unknown>> }): string =>
  (observation.info.board as string[]).join('');

/**
 * Plays one attempt of `env` (3×3) to its end: the episode, the board it started from, every step's
 * event line in order, and the final board.
 */
export function playRandomAttempt(
  env: ReturnType<typeof createTicTacToe>,
  seed: number,
  seat: 'first' | 'second',
  style: 'compact' | 'verbose',
) {
  const ep = env.createEpisode({
    seed,
    seat,
    style,
    rng: createRng(seed),
    opponent: randomLegalOpponent(ticTacToeGame(3), 'r'),
  });
  let obs = ep.reset(0);
  const start = boardOf(obs);
  const events: string[] = [];
  const pick = createRng(`pick/${seed}`);
  while (!ep.done) {
    const cells = [...boardOf(obs)];
    const empty = cells.flatMap((c, i) => (c === '.' ? [i] : []));
    const taken = cells.flatMap((c, i) => (c === '.' ? [] : [i]));
    const cell = taken.length > 0 && pick.next() < 0.2 ? pick.pick(taken) : pick.pick(empty);
    const step = ep.step(ep.parse(env.formatAction(cell, style)));
    events.push(step.event);
    obs = step.observation;
  }
  return { ep, start, events, final: boardOf(obs) };
}

/** `board` (9 cells) with the moves `lines` state placed: the agent's as `X`, the opponent's as `O`. */
export function placeMoves(board: string, lines: readonly string[]): string {
  const cells = [...board];
  for (const line of lines) {
    const { agent, opponent } = parseTicTacToeEvent(line, 3);
    if (agent !== null) cells[agent] = 'X';
    if (opponent !== null) cells[opponent] = 'O';
  }
  return cells.join('');
}
