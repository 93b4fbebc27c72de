// Update seconds per iteration, their mean (and without the first two, which compile sessions), rollout
// seconds and peak RSS of training runs' metrics.jsonl files.
// Usage: node docs/results/update-speed/updates.mjs <run>/metrics.jsonl ...
import { readFileSync } from 'node:fs';

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
for (const file of process.argv.slice(2)) {
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const updates = lines.filter((l) => l.type === 'update').map((l) => l.timing.seconds);
  const rollouts = lines.filter((l) => l.type === 'rollout').map((l) => l.timing?.seconds ?? 0);
  const rss = Math.max(...lines.map((l) => l.timing?.peakRssBytes ?? 0)) / 1e9;
  console.log(
    `${file}: ${updates.length} updates, mean ${mean(updates).toFixed(2)} s (${mean(updates.slice(2)).toFixed(2)} without the first two), rollout ${mean(rollouts).toFixed(2)} s, peak RSS ${rss.toFixed(2)} GB`,
  );
}
