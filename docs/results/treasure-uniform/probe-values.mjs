// What a first probe is worth to a reader under the training returns: with success-only rewards and early
// stop, a meta-episode whose first success is at attempt j returns γ^(j−1) at its first attempt (the
// differential and cumulative meta-rewards agree there), so a first probe is worth E[γ^(j−1)] over the
// targets when every later probe is the Bayes reader's. Reads `mage adaptation-ceiling treasure --json`
// (its bayesByFirstProbe) from stdin and prints that value per first probe for each γ_traj given.
// Usage: node packages/cli/dist/bin.js adaptation-ceiling treasure --json | node docs/results/treasure-uniform/probe-values.mjs 0.9 0.5
import { readFileSync } from 'node:fs';

const ceiling = JSON.parse(readFileSync(0, 'utf8'));
const gammas = process.argv.slice(2).map(Number);
if (!Array.isArray(ceiling.bayesByFirstProbe) || gammas.length === 0 || gammas.some((g) => !(g >= 0 && g <= 1))) {
  console.error('usage: mage adaptation-ceiling treasure --json | node probe-values.mjs <γ in [0, 1]> ...');
  process.exit(2);
}
const cell = (c) => `${c.row + 1}.${c.col + 1}`;
/** E[γ^(j−1)] from pass@k: the first success is at attempt j with probability pass@j − pass@(j−1). */
const value = (passAtK, g) => passAtK.reduce((s, p, k) => s + (p - (k > 0 ? passAtK[k - 1] : 0)) * g ** k, 0);
const rows = ceiling.bayesByFirstProbe.map((group) => [
  group.cells.map(cell).join(' '),
  ...group.bayes.map((p) => p.toFixed(3)),
  ...gammas.map((g) => value(group.bayes, g).toFixed(3)),
]);
const best = ceiling.bayesByFirstProbe[0].bayes;
const header = [
  'first probe',
  ...best.map((_, k) => `pass@${k + 1}`),
  ...gammas.map((g) => `value γ ${g}`),
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r) => r.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
console.log(line(header));
for (const r of rows) console.log(line(r));
for (const g of gammas) {
  const values = ceiling.bayesByFirstProbe.map((group) => value(group.bayes, g));
  const gap = values[0] - values[1];
  console.log(`γ ${g}: the best first probe is worth ${gap.toFixed(3)} more than the next (${((100 * gap) / values[0]).toFixed(1)}% of its value)`);
}
