// Note fidelity over training episodes: the share of notes that contain the finished attempt's event line (the
// guess or probe and its answer) exactly as the env wrote it in the reflect prompt.
// usage: node note-fidelity.mjs <episodes dir> [every]
import { readFileSync, readdirSync } from 'node:fs';
const [dir, everyText] = process.argv.slice(2);
const every = Number(everyText ?? 50);
const files = readdirSync(dir).filter((f) => f.startsWith('train-')).sort();
let n = 0, exact = 0, start = 0;
const norm = (s) => s.replace(/\s+/g, ' ').trim();
const flush = (end) => { if (n) console.log(`iters ${start}..${end}: notes ${n}, exact event ${(100*exact/n).toFixed(1)}%`); n = 0; exact = 0; };
for (const f of files) {
  const it = Number(f.match(/(\d+)/)[1]);
  if (it >= start + every) { flush(it - 1); start = it; }
  const d = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  for (const ep of d.episodes) for (const t of ep.turns) {
    if (t.phase !== 'reflect') continue;
    const lines = t.observation.split('\n');
    const i = lines.findLastIndex((l) => /^result :/.test(l));
    const event = i > 0 ? norm(lines[i - 1]) : null;
    if (!event) continue;
    n++;
    if (norm(t.response).includes(event)) exact++;
  }
}
flush('end');
