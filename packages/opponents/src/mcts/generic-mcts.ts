/**
 * UCT with MCTS-Solver over any deterministic two-player `GameModelV1` (no chance nodes): the same
 * algorithm as the Tic-Tac-Toe engine, on plain objects. Slower; use it for games without a specialised
 * engine. A player "wins" a terminal state when its return is higher than the other player's.
 */

import { CHANCE_PLAYER, type GameModelV1, InvalidArgumentError, type Rng } from '@mage-rl/core';
import type { MctsChildStats, MctsSearchResult, ProvenValue } from './tictactoe-mcts';

export interface GenericMctsOptions<S, A> {
  readonly game: GameModelV1<S, A>;
  readonly simulations: number;
  /** Default 1.4. */
  readonly exploration?: number;
  /** Default true. */
  readonly solver?: boolean;
}

export interface GenericMctsResult<A> extends Omit<MctsSearchResult, 'action' | 'children'> {
  readonly action: A;
  readonly children: readonly (Omit<MctsChildStats, 'action'> & { readonly action: A })[];
}

interface Node<S, A> {
  readonly state: S;
  readonly action: A | undefined;
  /** Player who moved into this node. */
  readonly mover: number;
  visits: number;
  reward: number;
  /** For `mover`. */
  proven: ProvenValue | null;
  children: Node<S, A>[] | null;
  tried: number;
}

export function createGenericMcts<S, A>(options: GenericMctsOptions<S, A>) {
  const { game, simulations } = options;
  const c = options.exploration ?? 1.4;
  const solver = options.solver ?? true;
  if (!Number.isInteger(simulations) || simulations < 1) {
    throw new InvalidArgumentError(
      `MCTS needs a positive integer number of simulations, got ${simulations}.`,
    );
  }
  const terminalOutcome = (state: S): number => {
    const r = game.returns(state);
    const r0 = r[0] ?? 0;
    const r1 = r[1] ?? 0;
    return r0 > r1 ? 0 : r1 > r0 ? 1 : 2;
  };
  const toMove = (state: S): number => {
    const p = game.currentPlayer(state);
    if (p === CHANCE_PLAYER) throw new InvalidArgumentError('Generic MCTS does not support chance nodes.');
    return p;
  };
  const make = (state: S, action: A | undefined, mover: number): Node<S, A> => {
    const node: Node<S, A> = {
      state,
      action,
      mover,
      visits: 0,
      reward: 0,
      proven: null,
      children: null,
      tried: 0,
    };
    if (game.isTerminal(state)) {
      const o = terminalOutcome(state);
      node.proven = o === 2 ? 0 : o === mover ? 1 : -1;
    }
    return node;
  };

  function search(state: S, rng: Rng): GenericMctsResult<A> {
    if (game.isTerminal(state)) throw new InvalidArgumentError('MCTS was asked to move in a finished game.');
    const rootPlayer = toMove(state);
    const root = make(state, undefined, 1 - rootPlayer);
    let sims = 0;
    const path: Node<S, A>[] = [];
    while (sims < simulations && !(solver && root.proven !== null)) {
      sims++;
      path.length = 0;
      let node = root;
      path.push(node);
      let outcome = 2;
      let newlyProven = false;
      for (;;) {
        if (node.proven !== null) {
          outcome = node.proven === 0 ? 2 : node.proven === 1 ? node.mover : 1 - node.mover;
          break;
        }
        const player = toMove(node.state);
        if (node.children === null) {
          const actions = rng.shuffle([...game.legalActions(node.state)]);
          node.children = actions.map((a) => make(game.apply(node.state, a), a, player));
        }
        if (node.tried < node.children.length) {
          const child = node.children[node.tried++] as Node<S, A>;
          path.push(child);
          if (child.proven !== null) {
            newlyProven = true;
            node = child;
            continue;
          }
          // One uniformly random rollout.
          let s = child.state;
          while (!game.isTerminal(s)) {
            toMove(s);
            s = game.apply(s, rng.pick(game.legalActions(s)));
          }
          outcome = terminalOutcome(s);
          break;
        }
        const logN = Math.log(node.visits);
        let best: Node<S, A> | undefined;
        let bestScore = Number.NEGATIVE_INFINITY;
        for (const ch of node.children) {
          if (solver && ch.proven === -1) continue;
          const score = ch.reward / ch.visits + c * Math.sqrt(logN / ch.visits);
          if (score > bestScore) {
            bestScore = score;
            best = ch;
          }
        }
        node = best ?? (node.children[0] as Node<S, A>);
        path.push(node);
      }
      for (const n of path) {
        n.visits++;
        n.reward += outcome === 2 ? 0.5 : outcome === n.mover ? 1 : 0;
      }
      if (solver && newlyProven) {
        for (let d = path.length - 2; d >= 0; d--) {
          const n = path[d] as Node<S, A>;
          const kids = n.children ?? [];
          let value = -2;
          let all = n.tried === kids.length;
          for (let k = 0; k < n.tried; k++) {
            const pv = (kids[k] as Node<S, A>).proven;
            if (pv === null) {
              all = false;
            } else if (pv === 1) {
              value = 1;
              all = true;
              break;
            } else if (pv > value) {
              value = pv;
            }
          }
          if (!all) break;
          n.proven = (value === 0 ? 0 : -value) as ProvenValue;
        }
      }
    }
    const kids = (root.children ?? []).slice(0, root.tried);
    const rank = (n: Node<S, A>) => n.proven ?? 0;
    let best = kids[0] as Node<S, A>;
    for (const k of kids) {
      if (
        rank(k) > rank(best) ||
        (rank(k) === rank(best) &&
          (k.visits > best.visits || (k.visits === best.visits && k.reward > best.reward)))
      ) {
        best = k;
      }
    }
    return {
      action: best.action as A,
      simulations: sims,
      rootProven: root.proven === null ? null : ((root.proven === 0 ? 0 : -root.proven) as ProvenValue),
      children: kids.map((k) => ({
        action: k.action as A,
        visits: k.visits,
        reward: k.reward,
        proven: k.proven,
      })),
    };
  }
  return { simulations, exploration: c, search };
}
