/**
 * CFR and CFR+ iterations per second on Kuhn Poker (one iteration updates both players), with the
 * exploitability the average strategy reaches, from `@mage-rl/opponents`.
 */
import { KUHN_INITIAL_STATE, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { createCfrSolver, profileNashConv } from '@mage-rl/opponents';
import { type BenchResult, type BenchSection, measureRate } from '../harness';

const section: BenchSection = {
  title: 'CFR on Kuhn Poker',
  async run() {
    const results: BenchResult[] = [];
    for (const algorithm of ['cfr', 'cfr+'] as const) {
      const solver = createCfrSolver({ game: kuhnGame, root: KUHN_INITIAL_STATE, algorithm });
      const rate = measureRate(() => {
        solver.run(1000);
        return 1000;
      });
      const fresh = createCfrSolver({ game: kuhnGame, root: KUHN_INITIAL_STATE, algorithm });
      fresh.run(1000);
      const expl = profileNashConv(fresh.tree, fresh.averageProfile()) / 2;
      results.push({
        name: `${algorithm}: iterations/s`,
        value: rate,
        unit: 'it/s',
        ...(algorithm === 'cfr+' ? { target: { value: 50_000, comparison: '>=' as const } } : {}),
        note: `exploitability after 1000 iterations ${expl.toExponential(2)}`,
      });
    }
    return results;
  },
};
export default section;
