// Reading diagnostic over episodes files (train-*.json, or one eval file) of higher-lower, doors or treasure:
// the share of later-attempt moves consistent with every hint the notes in the prompt state, against the
// share a uniform move would have. usage: node reading2.mjs <episodes dir|file> <env> <size...> [every]
import { readFileSync, readdirSync, statSync } from 'node:fs';
const [path, env, a, b, everyText] = process.argv.slice(2);
const files = statSync(path).isDirectory()
  ? readdirSync(path).filter((f) => f.startsWith('train-')).sort().map((f) => `${path}/${f}`)
  : [path];
const every = Number(everyText ?? 20);
// candidates: all actions; filter by hints in notes
function consistentSet(notes) {
  if (env === 'higher-lower') {
    const max = Number(a); let lo = 1, hi = max;
    for (const h of notes.matchAll(/guess (\d+) (higher|lower)/g)) { const g = +h[1]; if (h[2] === 'higher') lo = Math.max(lo, g + 1); else hi = Math.min(hi, g - 1); }
    const all = Array.from({ length: max }, (_, i) => i + 1);
    return { all, ok: all.filter((x) => x >= lo && x <= hi).map(String) };
  }
  if (env === 'doors') {
    const n = Number(a); const bad = new Set([...notes.matchAll(/door (\d+) empty/g)].map((m) => m[1]));
    const all = Array.from({ length: n }, (_, i) => String(i + 1));
    return { all, ok: all.filter((d) => !bad.has(d)) };
  }
  if (env === 'treasure') {
    const h = Number(a), w = Number(b ?? a); const all = [];
    for (let r = 1; r <= h; r++) for (let c = 1; c <= w; c++) all.push(`${r} ${c}`);
    let ok = all;
    for (const m of notes.matchAll(/probe (\d+) (\d+) ((?:north|south|west|east| )*)/g)) {
      const pr = +m[1], pc = +m[2], words = m[3];
      ok = ok.filter((cell) => {
        const [r, c] = cell.split(' ').map(Number);
        if (r === pr && c === pc) return false;
        const rowOk = words.includes('north') ? r < pr : words.includes('south') ? r > pr : r === pr;
        const colOk = words.includes('west') ? c < pc : words.includes('east') ? c > pc : c === pc;
        return rowOk && colOk;
      });
    }
    return { all, ok };
  }
  throw new Error(env);
}
let acc;
const reset = () => (acc = { n: 0, cons: 0, chance: 0, adv: [0, 0], advN: [0, 0] });
reset();
const flush = (label) => {
  if (acc.n === 0) return;
  console.log(`${label}: informed moves ${acc.n}, consistent ${(100 * acc.cons / acc.n).toFixed(1)}% (uniform ${(100 * acc.chance / acc.n).toFixed(1)}%)${acc.advN[1] ? `, mean adv consistent ${(acc.adv[1] / acc.advN[1]).toFixed(2)} inconsistent ${(acc.adv[0] / acc.advN[0]).toFixed(2)}` : ''}`);
  reset();
};
for (const f of files) {
  const r = JSON.parse(readFileSync(f, 'utf8'));
  for (const ep of r.episodes) for (const t of ep.turns) {
    if (t.phase !== 'play' || t.attempt === 0) continue;
    const notes = [...t.observation.matchAll(/<remark>([^<]*)<\/remark>/g)].map((m) => m[1]).join(' . ');
    const { all, ok } = consistentSet(notes);
    if (ok.length === all.length || ok.length === 0) continue;
    const mv = t.response.match(/<action>\s*([\d ,]+?)\s*<\/action>/);
    const x = mv ? mv[1].replace(/\s*,\s*|\s+/g, ' ').trim() : '';
    const c = ok.includes(x);
    acc.n++; acc.cons += c ? 1 : 0; acc.chance += ok.length / all.length;
    if (t.advantage != null) { acc.adv[c ? 1 : 0] += t.advantage; acc.advN[c ? 1 : 0]++; }
  }
  const it = Number((f.match(/(\d+)\.json$/) ?? [0, 0])[1]);
  if (files.length === 1) flush('all'); else if ((it + 1) % every === 0) flush(`iters ..${it}`);
}
flush('rest');
