// The larger paired evaluations (evals/big-<variant>-s<seed>.json): per seed and variant, pass@3, invalid
// moves (95% Wilson interval over turns), repeats of the refused move, and invalid moves minus the warm
// start's, paired by opponent (mean of the 8 opponents' differences, 95% t-interval over them); then, per
// variant, the mean over seeds of that difference with a 95% t-interval over seeds.
// usage: node table.mjs [evals dir] [variant ...]   (default: this folder's evals, c07p10 t1 p10 t07tl)
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const [dirArg, ...variantArgs] = process.argv.slice(2);
const dir = dirArg ?? join(dirname(fileURLToPath(import.meta.url)), 'evals');
const variants = variantArgs.length > 0 ? variantArgs : ['t1', 'p10', 't07tl', 'c07p10'];
const T = { 1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365 };
const ci = (xs) => {
  const n = xs.length;
  const m = xs.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (n - 1)) : Number.NaN;
  const h = ((T[n - 1] ?? 2) * sd) / Math.sqrt(n);
  const f = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
  return `${f(m)} [${f(m - h)}, ${f(m + h)}]`;
};
const read = (v, s) => {
  const f = join(dir, `big-${v}-s${s}.json`);
  return existsSync(f) && readFileSync(f, 'utf8').trim() ? JSON.parse(readFileSync(f, 'utf8')).metrics : null;
};
const pct = (x) => (100 * x).toFixed(1);
const seeds = [...Array(100).keys()].filter((s) => read('ws', s));
const bySeed = new Map(variants.map((v) => [v, []]));
console.log('| seed | policy | pass@3 | invalid moves | repeats | minus the warm start (pts, by opponent) |');
console.log('| --- | --- | ---: | ---: | ---: | ---: |');
for (const s of seeds) {
  const ws = read('ws', s);
  for (const v of ['ws', ...variants]) {
    const m = read(v, s);
    if (!m) continue;
    const o = m.overall;
    const inv = o.invalidActionRate;
    let diff = '—';
    if (v !== 'ws') {
      const ds = Object.keys(ws.byOpponent).map(
        (k) => m.byOpponent[k].invalidActionRate.rate - ws.byOpponent[k].invalidActionRate.rate,
      );
      diff = ci(ds);
      bySeed.get(v).push(inv.rate - ws.overall.invalidActionRate.rate);
    }
    console.log(
      `| ${s} | ${v} | ${pct(o.perAttempt.at(-1).passAtK.rate)} | ${pct(inv.rate)} [${pct(inv.low)}, ${pct(inv.high)}] | ${pct(o.repeatedInvalidRate.rate)}% | ${diff} |`,
    );
  }
}
console.log('\nInvalid moves minus the warm start, over seeds (pts, 95% t-interval):');
for (const [v, ds] of bySeed) {
  if (ds.length > 0) console.log(`- ${v}: ${ci(ds)} (seeds ${ds.map((d) => (100 * d).toFixed(1)).join(' / ')})`);
}
