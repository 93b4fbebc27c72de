// Aggregates `mage eval --json --foreign-notes` results over seeds: node aggregate.mjs [--mixed-commits] <bayes pass@K> <label=glob-prefix>...
// Each label's files: <prefix>-s<seed>.json, or a comma-separated list of files. Prints a markdown table: mean over seeds with 95% t-intervals.
// Refuses files of different commits (each file's `code`; older files are `commit unknown`) unless --mixed-commits.
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { checkCommits, mixedCommitsFlag } from './commits.mjs';
const { args, mixed } = mixedCommitsFlag(process.argv.slice(2));
const [bayesText, ...specs] = args;
const bayes = Number(bayesText);
const T = { 1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365 };
const ci = (xs) => {
  const n = xs.length;
  const m = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { m, h: NaN };
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (n - 1));
  return { m, h: (T[n - 1] ?? 2) * sd / Math.sqrt(n) };
};
const fmt = ({ m, h }, pts = true) => `${(pts ? 100 * m : m).toFixed(1)} [${(pts ? 100 * (m - h) : m - h).toFixed(1)}, ${(pts ? 100 * (m + h) : m + h).toFixed(1)}]`;
const last = (x) => x.overall.perAttempt.at(-1).passAtK.rate;
const attemptRate = (x, k) => x.overall.perAttempt[k].passAtK.rate;
const rows = specs.map((spec) => {
  const [label, prefix] = spec.split('=');
  const dir = dirname(prefix);
  const base = basename(prefix);
  const files = prefix.includes(',')
    ? prefix.split(',')
    : readdirSync(dir)
        .filter((f) => new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-s\\d+\\.json$`).test(f))
        .sort()
        .map((f) => `${dir}/${f}`);
  return { label, files: files.map((path) => ({ path, record: JSON.parse(readFileSync(path, 'utf8')) })) };
});
checkCommits(rows.flatMap((r) => r.files), mixed);
console.log(`| policy | seeds | pass@1 notes | pass@K notes | pass@K no memory | pass@K foreign notes | memory benefit @K (pts) | own − foreign @K (pts) | share of headroom (Bayes ${(100 * bayes).toFixed(1)}%) |`);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { label, files } of rows) {
  const rs = files.map((f) => f.record);
  if (rs.length === 0) continue;
  const notes = rs.map((r) => last(r.metrics));
  const none = rs.map((r) => last(r.withoutMemory));
  const foreign = rs.map((r) => last(r.withForeignNotes));
  const benefit = rs.map((r) => r.memoryBenefit.passAtK.at(-1).mean);
  const own = rs.map((r) => r.notesBenefit.passAtK.at(-1).mean);
  const share = rs.map((r, i) => (bayes - none[i] > 0 ? benefit[i] / (bayes - none[i]) : NaN));
  console.log(`| ${label} | ${rs.length} | ${fmt(ci(rs.map((r) => attemptRate(r.metrics, 0))))} | ${fmt(ci(notes))} | ${fmt(ci(none))} | ${fmt(ci(foreign))} | ${fmt(ci(benefit))} | ${fmt(ci(own))} | ${fmt(ci(share))} |`);
}
