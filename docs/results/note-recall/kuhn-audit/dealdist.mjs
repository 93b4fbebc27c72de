// Deal x seat counts per opponent on the evaluation tasks, chi-square vs uniform, and the "deal luck" of intermediate.
import { readFileSync } from 'node:fs';
const { createRng } = await import('/work/main/packages/core/dist/index.js');
const KUHN_DEALS = ['deal:JQ', 'deal:JK', 'deal:QJ', 'deal:QK', 'deal:KJ', 'deal:KQ'];
const d = JSON.parse(readFileSync(process.argv[2] ?? 'slots.json', 'utf8'));
const t = {};
for (const s of d.slots) { const deal = createRng(s.task.seed).split('deal').pick(KUHN_DEALS).slice(5); const k = s.task.opponentId; (t[k] ??= {}); const kk = `${s.task.seat[0]}:${deal}`; t[k][kk] = (t[k][kk] ?? 0) + 1; }
for (const [o, c] of Object.entries(t)) {
  const n = Object.values(c).reduce((a, b) => a + b); const e = n / 12; let chi = 0;
  for (const s of ['f', 's']) for (const dl of KUHN_DEALS) chi += ((c[`${s}:${dl.slice(5)}`] ?? 0) - e) ** 2 / e;
  console.log(o, 'chi2(11 df)=', chi.toFixed(1), JSON.stringify(Object.fromEntries(Object.entries(c).sort())));
}
// seeds distinct across opponents? and a big uniformity test of the deal draw itself
const seeds = d.slots.map((s) => s.task.seed); console.log('distinct seeds', new Set(seeds).size, 'of', seeds.length);
const big = {}; for (let i = 0; i < 60000; i++) { const dl = createRng((i * 2654435761) >>> 0).split('deal').pick(KUHN_DEALS); big[dl] = (big[dl] ?? 0) + 1; } console.log(big);
