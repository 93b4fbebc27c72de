#!/usr/bin/env node
// One line per evaluation file of `mage eval --foreign-notes --json`: wins per attempt and pass@3 with
// notes, with no memory and with foreign notes, own − foreign notes at pass@3 (points, 95% interval over
// the paired tasks), the invalid-move rate and the notes' recall.
// Usage: node docs/results/tictactoe-frozen/summary.mjs <eval.json> ...
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const pct = (x) => (100 * x).toFixed(1);
const wins = (m) => m.overall.perAttempt.map((a) => pct(a.success.rate)).join(' → ');
const pass3 = (m) => pct(m.overall.perAttempt.at(-1).passAtK.rate);
const diff = (b) => {
  const d = b?.passAtK.at(-1);
  const f = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
  return d ? `${f(d.mean)} [${f(d.low)}, ${f(d.high)}]` : '—';
};
const rows = [];
for (const file of process.argv.slice(2)) {
  const j = JSON.parse(readFileSync(file, 'utf8'));
  const m = j.metrics;
  rows.push(
    `| ${basename(file, '.json')} | ${wins(m)} (${pass3(m)}) | ${wins(j.withoutMemory)} (${pass3(j.withoutMemory)}) | ` +
      `${j.withForeignNotes ? `${wins(j.withForeignNotes)} (${pass3(j.withForeignNotes)})` : '—'} | ${diff(j.notesBenefit)} | ` +
      `${pct(m.overall.invalidActionRate.rate)} | ${m.overall.noteRecall?.toFixed(2) ?? '—'} | ${j.code?.commit?.slice(0, 7) ?? '?'}${j.code?.dirty ? ' (dirty)' : ''} |`,
  );
}
console.log(
  '| policy | wins per attempt with notes (pass@3), % | no memory | foreign notes | own − foreign @3 (pts) | invalid moves % | note recall | commit |',
);
console.log('| --- | --- | --- | --- | --- | ---: | ---: | --- |');
for (const r of rows) console.log(r);
