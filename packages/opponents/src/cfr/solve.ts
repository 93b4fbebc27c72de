import type { GameModelV1 } from '@mage-rl/spec';
import { profileNashConv, profileValues } from '../best-response/best-response';
import type { TabularStrategy } from '../strategy/strategy';
import { type CfrAlgorithm, createCfrSolver } from './cfr';

export interface SolveOptions<S, A> {
  readonly game: GameModelV1<S, A>;
  readonly root: S;
  /** Default `cfr+`. */
  readonly algorithm?: CfrAlgorithm;
  /** Default 1000. */
  readonly iterations?: number;
  readonly signal?: AbortSignal;
}

export interface SolveResult {
  readonly algorithm: CfrAlgorithm;
  readonly iterations: number;
  /** The average strategy of both players. */
  readonly strategy: TabularStrategy;
  /** Player 0's expected return when both follow the average strategy. */
  readonly value: number;
  readonly nashConv: number;
  /** NashConv / 2. */
  readonly exploitability: number;
}

/** Runs CFR or CFR+ and evaluates the average strategy exactly. */
export function solveGame<S, A>(options: SolveOptions<S, A>): SolveResult {
  const algorithm = options.algorithm ?? 'cfr+';
  const iterations = options.iterations ?? 1000;
  const solver = createCfrSolver({ game: options.game, root: options.root, algorithm });
  solver.run(iterations, options.signal);
  const profile = solver.averageProfile();
  const nc = profileNashConv(solver.tree, profile);
  return {
    algorithm,
    iterations,
    strategy: solver.averageStrategy(),
    value: profileValues(solver.tree, profile)[0],
    nashConv: nc,
    exploitability: nc / 2,
  };
}
