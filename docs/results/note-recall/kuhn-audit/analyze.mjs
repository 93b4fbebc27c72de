// Empirical behaviour strategy of the trained policy from dumped rows, and its exact EV (with the env's
// stall = truncation-at-0 option) against each archetype, per seat/card/history, vs measured.
import { readFileSync } from 'node:fs';
const d = JSON.parse(readFileSync(process.argv[2] ?? 'slots.json', 'utf8'));
const slotInfo = new Map(d.slots.map((s) => [s.slot, { seat: s.task.seat, opp: s.task.opponentId, ret: s.attempts[0].return / 5, a: s.attempts[0] }]));
const byKey = new Map(); // slot -> [{card, history, actions[]}]
for (const r of d.rows) {
  if (r.phase !== 'play') continue;
  const [, card, hist] = r.anchor.split('|')[0].split(':');
  const m = /<action>\s*(PASS|BET)\s*<\/action>/i.exec(r.responseText);
  const list = byKey.get(r.slot) ?? []; byKey.set(r.slot, list);
  let node = list.find((n) => n.card === card && n.hist === hist);
  if (!node) { node = { card, hist, seq: [] }; list.push(node); }
  node.seq.push(r.valid ? (/BET/i.test(r.responseText.match(/<action>([\s\S]*?)<\/action>/i)[1]) ? 'BET' : 'PASS') : 'INV');
}
// Behaviour: per (seat, card, history): counts of first valid action, or STALL (never valid), plus per-turn invalid rate.
const strat = {}; // key seat|card|hist -> {PASS, BET, STALL, n, invTurns, turns}
const measured = {}; // opp|seat|card(root) -> [sum, n]
for (const [slot, nodes] of byKey) {
  const { seat, opp, ret } = slotInfo.get(slot);
  for (const n of nodes) {
    const k = `${seat}|${n.card}|${n.hist || '-'}`;
    const s = (strat[k] ??= { PASS: 0, BET: 0, STALL: 0, n: 0, inv: 0, turns: 0 });
    const v = n.seq.find((x) => x !== 'INV');
    s[v ?? 'STALL']++; s.n++; s.inv += n.seq.filter((x) => x === 'INV').length; s.turns += n.seq.length;
  }
  const mk = `${opp}|${seat}|${nodes[0].card}`;
  const m = (measured[mk] ??= [0, 0]); m[0] += ret; m[1]++;
}
console.log('seat   card hist   n     PASS   BET    STALL  invalid/turn');
for (const k of Object.keys(strat).sort()) {
  const s = strat[k];
  console.log(k.padEnd(18), String(s.n).padStart(5), ...['PASS', 'BET', 'STALL'].map((a) => (s[a] / s.n).toFixed(3).padStart(6)), (s.inv / s.turns).toFixed(3));
}
// Exact EV. Agent player a (0 first / 1 second). Opponent archetype deterministic.
const RANK = { J: 0, Q: 1, K: 2 };
const RULES = {
  conservative: (c) => (c === 'K' ? 'b' : 'p'),
  aggressive: (c, f) => (!f ? 'b' : c === 'J' ? 'p' : 'b'),
  intermediate: (c, f) => (c === 'K' ? 'b' : c === 'J' ? 'p' : f ? 'p' : 'b'),
};
const term = (h) => ['pp', 'bb', 'pbb', 'bp', 'pbp'].includes(h);
function payoff0(h, c0, c1) {
  if (h === 'bp') return 1; if (h === 'pbp') return -1;
  const st = h === 'pp' ? 1 : 2; return RANK[c0] > RANK[c1] ? st : -st;
}
function probs(seat, card, hist, stallAs) {
  const s = strat[`${seat}|${card}|${hist || '-'}`];
  if (!s) return { p: 0.5, b: 0.5, stall: 0, unseen: true };
  if (stallAs === 'keep') return { p: s.PASS / s.n, b: s.BET / s.n, stall: s.STALL / s.n };
  // renormalise among valid actions (the strategy the analysis tools assume)
  const v = s.PASS + s.BET; return v ? { p: s.PASS / v, b: s.BET / v, stall: 0 } : { p: 0.5, b: 0.5, stall: 0 };
}
function ev(opp, seat, c0, c1, h, stallAs, stallValue) {
  const a = seat === 'first' ? 0 : 1;
  if (term(h)) { const p = payoff0(h, c0, c1); return a === 0 ? p : -p; }
  const toMove = h.length % 2;
  if (toMove !== a) { const oc = toMove === 0 ? c0 : c1; return ev(opp, seat, c0, c1, h + RULES[opp](oc, h.endsWith('b')), stallAs, stallValue); }
  const my = a === 0 ? c0 : c1; const pr = probs(seat, my, h, stallAs);
  return pr.p * ev(opp, seat, c0, c1, h + 'p', stallAs, stallValue) + pr.b * ev(opp, seat, c0, c1, h + 'b', stallAs, stallValue) + pr.stall * stallValue;
}
const deals = ['JQ', 'JK', 'QJ', 'QK', 'KJ', 'KQ'];
const STALLV = Number(process.argv[3] ?? 0);
for (const stallAs of ["keep", "renorm"]) {
  console.log(`\nexact EV (${stallAs === "keep" ? `stall scores ${STALLV} (0 = env truncation zero, -1 = truncation loss)` : 'invalid/stall removed, renormalised to PASS/BET'}) vs measured, chips per hand`);
  const tot = [];
  for (const opp of Object.keys(RULES)) {
    let sumE = 0, sumM = 0, nM = 0;
    for (const seat of ['first', 'second']) {
      for (const card of ['J', 'Q', 'K']) {
        let e = 0, k = 0;
        for (const dl of deals) { const mine = seat === 'first' ? dl[0] : dl[1]; if (mine !== card) continue; e += ev(opp, seat, dl[0], dl[1], "", stallAs, STALLV); k++; }
        e /= k; const m = measured[`${opp}|${seat}|${card}`] ?? [0, 0];
        if (stallAs === 'keep') console.log(`  ${opp.padEnd(13)} ${seat.padEnd(6)} ${card}: exact ${e.toFixed(3).padStart(6)}  measured ${(m[0] / m[1]).toFixed(3).padStart(6)} (n=${m[1]})`);
        sumE += e / 6; sumM += m[0]; nM += m[1];
      }
    }
    console.log(`  ${opp}: exact ${sumE.toFixed(3)}  measured ${(sumM / nM).toFixed(3)} (seat-weighted exact uses 50/50)`);
    tot.push(sumE);
  }
  console.log(`  average exact ${(tot.reduce((a, b) => a + b) / 3).toFixed(3)}`);
}
