// The first attempt's moves per window of iterations: how often each was played, its mean advantage, and how
// often the meta-episode then succeeded at a later attempt (the value of the move as a probe).
// usage: node first-moves.mjs <episodes dir> [every]
import { readFileSync, readdirSync } from 'node:fs';
const [dir, everyText] = process.argv.slice(2);
const every = Number(everyText ?? 50);
const files = readdirSync(dir).filter((f) => f.startsWith('train-')).sort();
let win = new Map(); let start = 0;
const flush = (end) => {
  const rows = [...win.entries()].sort((a,b)=>b[1].n-a[1].n).slice(0,8).map(([m, s]) => `${m}: n${s.n} adv ${(s.a/s.n).toFixed(2)} later ${(s.w/s.n).toFixed(2)}`);
  console.log(`iters ${start}..${end}: ${rows.join(' | ')}`); win = new Map();
};
for (const f of files) {
  const it = Number(f.match(/(\d+)/)[1]);
  if (it >= start + every) { flush(it - 1); start = it; }
  const d = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  for (const ep of d.episodes) {
    const t = ep.turns.find((t) => t.phase === 'play' && t.attempt === 0);
    if (!t) continue;
    const m = (t.response.match(/<action>\s*([^<]*?)\s*<\/action>/) ?? [,'?'])[1];
    const later = ep.attempts.some((a) => a.attempt > 0 && a.outcome.success) ? 1 : 0;
    const s = win.get(m) ?? { n: 0, a: 0, w: 0 }; s.n++; s.a += t.advantage; s.w += later; win.set(m, s);
  }
}
flush('end');
