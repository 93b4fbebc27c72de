/**
 * Runs every benchmark section in `src/sections/` (or only those whose file name contains one of the
 * command-line words) and prints one table. Usage: `pnpm bench [word …] [--json]`.
 */
import { readdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BenchResult, type BenchSection, formatRate } from './harness';

const args = process.argv.slice(2);
const json = args.includes('--json');
const filters = args.filter((a) => !a.startsWith('--'));
const dir = fileURLToPath(new URL('./sections/', import.meta.url));
const files = (await readdir(dir)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort();
const selected = files.filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)));

const all: { section: string; results: BenchResult[] }[] = [];
for (const file of selected) {
  const mod = (await import(pathToFileURL(`${dir}${file}`).href)) as { default: BenchSection };
  const section = mod.default;
  if (!json) process.stdout.write(`\n## ${section.title} (${basename(file, '.ts')})\n`);
  const results = await section.run();
  all.push({ section: section.title, results });
  if (!json) {
    for (const r of results) {
      const target = r.target
        ? `  target ${r.target.comparison} ${formatRate(r.target.value)} ${r.target.comparison === '>=' ? (r.value >= r.target.value ? 'PASS' : 'MISS') : r.value <= r.target.value ? 'PASS' : 'MISS'}`
        : '';
      process.stdout.write(
        `${r.name.padEnd(52)} ${formatRate(r.value).padStart(10)} ${r.unit.padEnd(10)}${target}${r.note ? `  (${r.note})` : ''}\n`,
      );
    }
  }
}
if (json) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
if (selected.length === 0) process.stdout.write(`No bench section matches ${filters.join(', ')}.\n`);
