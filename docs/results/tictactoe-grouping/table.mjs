// Per-opponent against mixed groups on the 512-task paired evaluation (evals/big-mixed-s<seed>.json here;
// the warm start's and the default per-opponent run's, big-ws-s* and big-t1-s*, in tictactoe-invalid-combined).
// Per seed: pass@1 / @2 / @3, invalid moves and repeats of the refused move; then mixed minus per-opponent,
// paired by seed (mean, 95% t-interval over seeds), overall and per opponent at pass@3; invalid moves minus the
// warm start's over seeds.
// usage: node table.mjs [mixed evals dir] [reference evals dir]
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const here = dirname(fileURLToPath(import.meta.url));
const [mixedDir = join(here, 'evals'), refDir = join(here, '../tictactoe-invalid-combined/evals')] =
  process.argv.slice(2);
const T = { 1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571 };
const ci = (xs) => {
  const n = xs.length;
  const m = xs.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (n - 1)) : Number.NaN;
  const h = ((T[n - 1] ?? 2) * sd) / Math.sqrt(n);
  const f = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
  return n > 1 ? `${f(m)} [${f(m - h)}, ${f(m + h)}]` : f(m);
};
const read = (dir, v, s) => {
  const f = join(dir, `big-${v}-s${s}.json`);
  return existsSync(f) && readFileSync(f, 'utf8').trim() ? JSON.parse(readFileSync(f, 'utf8')).metrics : null;
};
const pct = (x) => (100 * x).toFixed(1);
const passAt = (o, k) => o.perAttempt[k].passAtK.rate;
const seeds = [...Array(100).keys()].filter((s) => read(mixedDir, 'mixed', s) && read(refDir, 't1', s));
console.log('| seed | policy | pass@1 / @2 / @3 | invalid moves | minus the warm start (pts) | repeats of the refused move |');
console.log('| --- | --- | --- | ---: | ---: | ---: |');
const policies = [
  ['ws', refDir, 'warm start'],
  ['t1', refDir, 'MAGE, per-opponent groups (default)'],
  ['mixed', mixedDir, 'MAGE, mixed groups'],
];
for (const s of seeds) {
  for (const [v, dir, name] of policies) {
    const m = read(dir, v, s);
    if (!m) continue;
    const o = m.overall;
    const passes = [0, 1, 2].map((k) => pct(passAt(o, k))).join(' / ');
    const ws = read(refDir, 'ws', s).overall.invalidActionRate.rate;
    const minus = v === 'ws' ? '—' : ci([o.invalidActionRate.rate - ws]);
    console.log(
      `| ${s} | ${name} | ${passes} | ${pct(o.invalidActionRate.rate)} | ${minus} | ${pct(o.repeatedInvalidRate.rate)} |`,
    );
  }
}
const diff = (f) => seeds.map((s) => f(read(mixedDir, 'mixed', s)) - f(read(refDir, 't1', s)));
console.log(`\nMixed minus per-opponent groups, paired by seed (points, seeds ${seeds.join(', ')}):`);
for (const k of [0, 1, 2]) console.log(`- pass@${k + 1}: ${ci(diff((m) => passAt(m.overall, k)))}`);
console.log(`- invalid moves: ${ci(diff((m) => m.overall.invalidActionRate.rate))}`);
const minusWs = (dir, v) =>
  seeds.map((s) => read(dir, v, s).overall.invalidActionRate.rate - read(refDir, 'ws', s).overall.invalidActionRate.rate);
console.log(`\nInvalid moves minus the warm start's, over seeds (points): per-opponent ${ci(minusWs(refDir, 't1'))}; mixed ${ci(minusWs(mixedDir, 'mixed'))}`);
console.log('\nPer opponent, pass@3, mixed minus per-opponent (points, 95% t-interval over seeds):');
for (const o of Object.keys(read(refDir, 't1', seeds[0]).byOpponent)) {
  console.log(`- ${o}: ${ci(diff((m) => passAt(m.byOpponent[o], 2)))}`);
}
