/** A real smoke run (Tic-Tac-Toe, 12 iterations) as a fixture, and temporary run directories built from it. */

import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURE_RUN = fileURLToPath(new URL('./__fixtures__/ttt-smoke', import.meta.url));

/** The fixture's metrics lines (each without its newline). */
export async function fixtureLines(): Promise<string[]> {
  return (await readFile(join(FIXTURE_RUN, 'metrics.jsonl'), 'utf8')).split('\n').filter((l) => l !== '');
}

/** A copy of the fixture run whose metrics.jsonl holds only its first `lines` lines. */
export async function partialRun(lines: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mage-dash-'));
  await cp(FIXTURE_RUN, dir, { recursive: true });
  const all = await fixtureLines();
  await writeFile(
    join(dir, 'metrics.jsonl'),
    all
      .slice(0, lines)
      .map((l) => `${l}\n`)
      .join(''),
  );
  return dir;
}

/**
 * A run of `iterations` iterations made of the fixture's lines renumbered (a rollout and an update line
 * per iteration, an evaluation every 10), for load tests.
 */
export async function syntheticRun(iterations: number, seed: number): Promise<string> {
  const all = (await fixtureLines()).map(
    (l) => JSON.parse(l) as { type: string; iteration: number; completed?: number },
  );
  const pick = (type: string, i: number) =>
    all.filter((l) => l.type === type)[i % all.filter((l) => l.type === type).length]!;
  const out: string[] = [];
  for (let i = 0; i < iterations; i++) {
    out.push(JSON.stringify({ ...pick('rollout', i + seed), iteration: i }));
    out.push(JSON.stringify({ ...pick('update', i + seed), iteration: i }));
    if ((i + 1) % 10 === 0)
      out.push(JSON.stringify({ ...pick('eval', i + seed), iteration: i, completed: i + 1 }));
  }
  const dir = await mkdtemp(join(tmpdir(), 'mage-dash-load-'));
  await cp(join(FIXTURE_RUN, 'config.json'), join(dir, 'config.json'));
  await writeFile(join(dir, 'metrics.jsonl'), `${out.join('\n')}\n`);
  return dir;
}
