// Per seed, each variant's pass@K with notes, with no memory and with foreign notes, and its paired
// differences over the evaluation tasks (own − foreign notes, own notes − no memory, 95% intervals):
//   node docs/results/meta-reward/table.mjs <evals dir> <variant ...>
// reads <evals dir>/<variant>-s<seed>.json for every seed found; the interval over seeds is aggregate.mjs's.
import { readFileSync, readdirSync } from 'node:fs';

const [dir, ...variants] = process.argv.slice(2);
if (!dir || variants.length === 0) {
  console.error('usage: node table.mjs <evals dir> <variant ...>');
  process.exit(2);
}
const pct = (x) => (100 * x).toFixed(1);
const pts = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const atK = (metrics) => metrics.overall.perAttempt.at(-1).passAtK.rate;
const paired = (benefit) => {
  const last = benefit.passAtK.at(-1);
  return `${pts(last.mean)} [${pts(last.low)}, ${pts(last.high)}]`;
};
console.log('| variant | seed | pass@K notes % | no memory % | foreign notes % | own − foreign (pts) | memory benefit (pts) | commit |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
for (const variant of variants) {
  const files = readdirSync(dir)
    .filter((f) => new RegExp(`^${variant.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-s\\d+\\.json$`).test(f))
    .sort();
  for (const file of files) {
    const r = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8'));
    const seed = file.slice(variant.length + 2, -'.json'.length);
    const commit = `${r.code.commit.slice(0, 7)}${r.code.dirty ? '+dirty' : ''}`;
    console.log(
      `| ${variant} | ${seed} | ${pct(atK(r.metrics))} | ${pct(atK(r.withoutMemory))} | ${pct(atK(r.withForeignNotes))} | ${paired(r.notesBenefit)} | ${paired(r.memoryBenefit)} | ${commit} |`,
    );
  }
}
