// Reconstruct each slot's deal from its task seed (createRng(seed).split('deal').pick(KUHN_DEALS), attempt 0),
// check it against the prompt card, the observed opponent moves (archetype rules) and the attempt's return,
// then compare measured returns with the exact EV conditional on the deals actually dealt.
import { readFileSync } from 'node:fs';
const { createRng } = await import('/work/main/packages/core/dist/index.js');
const KUHN_DEALS = ['deal:JQ', 'deal:JK', 'deal:QJ', 'deal:QK', 'deal:KJ', 'deal:KQ'];
const d = JSON.parse(readFileSync(process.argv[2] ?? 'slots.json', 'utf8'));
const RANK = { J: 0, Q: 1, K: 2 };
const RULES = {
  conservative: (c) => (c === 'K' ? 'b' : 'p'),
  aggressive: (c, f) => (!f ? 'b' : c === 'J' ? 'p' : 'b'),
  intermediate: (c, f) => (c === 'K' ? 'b' : c === 'J' ? 'p' : f ? 'p' : 'b'),
};
const term = (h) => ['pp', 'bb', 'pbb', 'bp', 'pbp'].includes(h);
const payoff0 = (h, c0, c1) => (h === 'bp' ? 1 : h === 'pbp' ? -1 : (RANK[c0] > RANK[c1] ? 1 : -1) * (h === 'pp' ? 1 : 2));
const rowsBySlot = new Map();
for (const r of d.rows) if (r.phase === 'play') (rowsBySlot.get(r.slot) ?? rowsBySlot.set(r.slot, []).get(r.slot)).push(r);
// empirical strategy (first valid action or STALL) per seat|card|hist
const strat = {};
const act = (r) => (r.valid ? (/BET/i.test(/<action>([\s\S]*?)<\/action>/i.exec(r.responseText)[1]) ? 'b' : 'p') : null);
for (const s of d.slots) {
  const rows = rowsBySlot.get(s.slot); const seen = new Map();
  for (const r of rows) { const k = r.anchor.split('|')[0]; if (!seen.has(k)) seen.set(k, null); if (seen.get(k) === null && act(r)) seen.set(k, act(r)); }
  for (const [k, a] of seen) { const [, card, hist] = k.split(':'); const key = `${s.task.seat}|${card}|${hist}`; const e = (strat[key] ??= { p: 0, b: 0, stall: 0, n: 0 }); e[a ?? 'stall']++; e.n++; }
}
const P = (seat, card, h) => { const e = strat[`${seat}|${card}|${h}`]; return e ? { p: e.p / e.n, b: e.b / e.n, stall: e.stall / e.n } : { p: 0.5, b: 0.5, stall: 0 }; };
function ev(opp, a, c, h, seat) {
  if (term(h)) { const p = payoff0(h, c[0], c[1]); return a === 0 ? p : -p; }
  const m = h.length % 2;
  if (m !== a) return ev(opp, a, c, h + RULES[opp](c[m], h.endsWith('b')), seat);
  const pr = P(seat, c[a], h);
  return pr.p * ev(opp, a, c, h + 'p', seat) + pr.b * ev(opp, a, c, h + 'b', seat);
}
let bad = { card: 0, opp: 0, ret: 0 }; const agg = {};
for (const s of d.slots) {
  const deal = createRng(s.task.seed).split('deal').pick(KUHN_DEALS).slice(5);
  const a = s.task.seat === 'second' ? 1 : 0; const opp = s.task.opponentId;
  const rows = rowsBySlot.get(s.slot);
  const card = /card ([JQK])/.exec(rows[0].promptText)[1];
  if (card !== deal[a]) bad.card++;
  // replay: opp moves per archetype, agent's valid actions from rows
  let h = ''; let i = 0; let stalled = false;
  const oppMove = () => { if (!term(h) && h.length % 2 !== a) h += RULES[opp](deal[1 - a], h.endsWith('b')); };
  oppMove();
  for (const r of rows) {
    const [, , rh] = r.anchor.split('|')[0].split(':');
    if (rh !== h) bad.opp++;
    const x = act(r); if (x) { h += x; oppMove(); }
  }
  const ret = s.attempts[0].return / 5;
  const exp = term(h) ? payoff0(h, deal[0], deal[1]) * (a === 0 ? 1 : -1) : 0;
  if (Math.abs(exp - ret) > 1e-9) bad.ret++;
  const k = opp; const g = (agg[k] ??= { m: 0, e: 0, u: 0, n: 0, stall: 0 });
  g.m += ret; g.e += ev(opp, a, deal, '', s.task.seat); g.n++; if (!term(h)) g.stall++;
}
console.log('mismatches (prompt card vs deal, observed history vs archetype replay, return vs payoff):', bad);
// exact over uniform deals and 50/50 seats
for (const [opp, g] of Object.entries(agg)) {
  let u = 0; for (const seat of ['first', 'second']) for (const dl of KUHN_DEALS) u += ev(opp, seat === 'first' ? 0 : 1, dl.slice(5), '', seat) / 12;
  console.log(`${opp.padEnd(13)} measured ${(g.m / g.n).toFixed(3)} | exact given the dealt deals+seats ${(g.e / g.n).toFixed(3)} | exact uniform deals/seats ${u.toFixed(3)} | stalled hands ${(g.stall / g.n * 100).toFixed(1)}%`);
}
// Deal luck: SD over the 12 equally likely (seat, deal) cells of the conditional EV, and z of (given-deals − uniform).
for (const [opp, g] of Object.entries(agg)) {
  const v = []; for (const seat of ['first', 'second']) for (const dl of KUHN_DEALS) v.push(ev(opp, seat === 'first' ? 0 : 1, dl.slice(5), '', seat));
  const mu = v.reduce((a, b) => a + b) / 12; const sd = Math.sqrt(v.reduce((a, b) => a + (b - mu) ** 2, 0) / 12);
  console.log(`${opp.padEnd(13)} cell EVs [${v.map((x) => x.toFixed(2)).join(' ')}] sd ${sd.toFixed(2)}; deal-luck ${(g.e / g.n - mu).toFixed(3)} = ${((g.e / g.n - mu) / (sd / Math.sqrt(g.n))).toFixed(1)} SE`);
}
