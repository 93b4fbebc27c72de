// Paired-by-seed differences at pass@K between two policies' `mage eval --json --foreign-notes` results:
// node compare.mjs [--mixed-commits] <prefixA> <prefixB> — files <prefix>-s<seed>.json; seeds both have. Mean
// over seeds with a 95% t-interval, for pass@K with notes and for the memory benefit. Refuses files of
// different commits (each file's `code`; older files are `commit unknown`) unless --mixed-commits.
import { existsSync, readFileSync } from 'node:fs';
import { checkCommits, mixedCommitsFlag } from './commits.mjs';
const { args, mixed } = mixedCommitsFlag(process.argv.slice(2));
const [a, b] = args;
const T = { 1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776 };
const ci = (xs) => {
  const n = xs.length;
  const m = xs.reduce((s, x) => s + x, 0) / n;
  const sd = n > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1)) : Number.NaN;
  const h = (T[n - 1] ?? 2) * sd / Math.sqrt(n);
  const f = (x) => (100 * x).toFixed(1);
  return `${f(m)} [${f(m - h)}, ${f(m + h)}]`;
};
const read = (p, s) => (existsSync(`${p}-s${s}.json`) ? JSON.parse(readFileSync(`${p}-s${s}.json`, 'utf8')) : null);
const seeds = [...Array(100).keys()].filter((s) => read(a, s) && read(b, s));
checkCommits(
  seeds.flatMap((s) => [a, b].map((p) => ({ path: `${p}-s${s}.json`, record: read(p, s) }))),
  mixed,
);
const passK = (r) => r.metrics.overall.perAttempt.at(-1).passAtK.rate;
const benefit = (r) => r.memoryBenefit.passAtK.at(-1).mean;
const own = (r) => r.notesBenefit.passAtK.at(-1).mean;
const d = (f) => seeds.map((s) => f(read(a, s)) - f(read(b, s)));
console.log(`seeds ${seeds.join(', ')}: pass@K with notes ${ci(d(passK))}; memory benefit ${ci(d(benefit))}; own − foreign ${ci(d(own))} (points)`);
