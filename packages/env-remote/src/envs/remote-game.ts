/**
 * The game model of an env that lives on a server (ALFWorld, WebShop): one player, the admissible actions
 * of the last observation, terminal once the attempt is over. There is no local rules engine, so
 * `apply` throws: search, solvers and scripted teachers cannot run on these envs.
 */

import { type GameModelV1, InvalidArgumentError, TERMINAL_PLAYER } from '@mage-rl/core';

/** What every remote env state holds. */
export interface RemoteStateBase {
  /** Actions the server admits now (commands, `search[…]` / `click[…]`). */
  readonly actions: readonly string[];
  readonly done: boolean;
  /** The env reward of the attempt so far. */
  readonly score: number;
}

export function remoteGameModel<S extends RemoteStateBase>(label: string): GameModelV1<S, string> {
  return {
    specificationVersion: 'v1',
    numPlayers: 1,
    currentPlayer: (s) => (s.done ? TERMINAL_PLAYER : 0),
    legalActions: (s) => (s.done ? [] : s.actions),
    apply() {
      throw new InvalidArgumentError(
        `${label} runs on its server: its game model cannot apply actions locally (no search, solver or scripted teacher).`,
      );
    },
    isTerminal: (s) => s.done,
    returns: (s) => [s.score],
    actionKey: (a) => a,
    stateKey: (s) => JSON.stringify(s),
  };
}
