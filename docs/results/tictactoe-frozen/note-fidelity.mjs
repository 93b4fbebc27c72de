#!/usr/bin/env node
// How faithfully a policy's notes state a finished attempt of `tictactoe-frozen` (compact prompts): it plays
// <episodes> meta-episodes per opponent with its own notes (evaluation seed <seed>) and compares every note
// with what the reflect prompt showed — the result word (`result : won|lost|draw`) and the agent's line
// (the reveal, `end you …`). Prints the share of notes with the right result, with the whole line right,
// and the share of the line's moves stated in place (move i of the note equals move i of the line).
// Usage: node docs/results/tictactoe-frozen/note-fidelity.mjs <policy dir> [episodes=32] [seed=1000]
// (from the repository root, after a build)
import { createTrainer } from '../../../packages/trainer/dist/index.js';

const [policy, episodesText, seedText] = process.argv.slice(2);
if (!policy) {
  console.error('usage: node note-fidelity.mjs <policy dir> [episodes=32] [seed=1000]');
  process.exit(1);
}
const r = await createTrainer({ env: 'tictactoe-frozen' }).evaluate({
  policy,
  method: 'mage',
  episodes: Number(episodesText ?? 32),
  seed: Number(seedText ?? 1000),
});
// The moves of a line or note, one word each: `( 2 , 2 )` (the first form of the line) read as `22`.
const moves = (text) =>
  (/end you((?: \S+)*?)(?= <\/remark>|$)/m.exec(text.replace(/\( (\d) , (\d) \)/g, '$1$2'))?.[1] ?? '')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
let notes = 0;
let rightResult = 0;
let rightLine = 0;
let inPlace = 0;
let lineMoves = 0;
for (const row of r.result.batch.rows.filter((x) => x.phase === 'reflect')) {
  const prompt = row.promptText;
  const line = [...prompt.matchAll(/^end you(?: \S+)*$/gm)].at(-1)?.[0] ?? '';
  const result = /result : (\w+)/.exec(prompt)?.[1];
  const truth = moves(line);
  const note = row.responseText;
  const stated = moves(note);
  notes += 1;
  // The note's result word: `attempt N won|lost|draw`; the prompt's: `result : won|lost|draw`.
  if (result && new RegExp(`attempt \\d+ ${result} `).test(note)) rightResult += 1;
  if (truth.length > 0 && truth.join(' ') === stated.join(' ')) rightLine += 1;
  lineMoves += truth.length;
  inPlace += truth.filter((m, i) => stated[i] === m).length;
}
const pct = (a, b) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)}%`);
console.log(
  `${policy}: ${notes} notes; result right ${pct(rightResult, notes)}; whole line right ${pct(rightLine, notes)}; ` +
    `moves stated in place ${pct(inPlace, lineMoves)} (code ${r.code?.commit?.slice(0, 7)}${r.code?.dirty ? ' dirty' : ''})`,
);
