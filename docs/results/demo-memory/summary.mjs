// The per-seed table of the demo's runs: node docs/results/demo-memory/summary.mjs docs/results/demo-memory/evals/demo-s*.json
import { readFileSync } from 'node:fs';

const f = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const pts = (m) => `${f(m.mean)} [${f(m.low)}, ${f(m.high)}]`;
const pass3 = (metrics) => (100 * metrics.overall.perAttempt.at(-1).passAtK.rate).toFixed(1);
const rows = process.argv.slice(2).map((file) => {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const seed = r.seed.split('/')[0];
  const ws = r.warmStartEvaluation;
  const mage = r.mageEvaluation;
  return `| ${seed} | ${pass3(ws.withNotes)} | ${pass3(mage.withNotes)} | ${pts(r.mageMinusWarmStart.passAtK.at(-1))} | ${pass3(mage.noMemory)} | ${pts(mage.memoryBenefit.passAtK.at(-1))} | ${pts(mage.ownMinusForeign.passAtK.at(-1))} | ${pts(ws.ownMinusForeign.passAtK.at(-1))} | ${r.reads ? 'yes' : 'no'} |`;
});
console.log(
  [
    '| seed | warm start pass@3 with notes % | MAGE pass@3 with notes % | MAGE − warm start @3 (pts) | MAGE pass@3 no memory % | MAGE memory benefit @3 (pts) | MAGE own − foreign @3 (pts) | warm start own − foreign @3 (pts) | bar met |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n'),
);
