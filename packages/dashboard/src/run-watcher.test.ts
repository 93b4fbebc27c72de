import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseMetrics } from '@mage-rl/report';
import { describe, expect, it } from 'vitest';
import { RunWatcher } from './run-watcher';
import { FIXTURE_RUN, fixtureLines, partialRun } from './test-fixtures.test-helper';

describe('parseMetrics', () => {
  it('keeps complete lines, counts damaged ones, and holds back a torn last line', () => {
    const good = JSON.stringify({ type: 'update', iteration: 0 });
    const parsed = parseMetrics(
      `${good}\nnot json\n{"type":"other","iteration":1}\n${good}\n{"type":"roll`,
      5,
    );
    expect(parsed.lines).toHaveLength(2);
    expect(parsed.damaged).toEqual([6, 7]);
    expect(parsed.partial).toBe('{"type":"roll');
  });
});

describe('RunWatcher', () => {
  it('reads the fixture run, names it from config.json and lists its replay files', async () => {
    const w = new RunWatcher('0', FIXTURE_RUN);
    const { lines } = await w.poll();
    expect(lines).toHaveLength((await fixtureLines()).length);
    expect(w.status()).toMatchObject({ name: 'mage (tictactoe) · ttt-smoke', error: null, partial: false });
    expect(w.metrics().rollouts).toHaveLength(12);
    expect(w.metrics().evals).toHaveLength(6);
    expect((await w.episodeFiles()).map((f) => f.name)).toEqual(['eval-000011.json', 'train-000011.json']);
  });

  it('names a run whose config.json is missing or half-written on a later poll, without an error', async () => {
    const dir = await partialRun(2);
    const record = await readFile(join(dir, 'config.json'), 'utf8');
    await rm(join(dir, 'config.json'));
    const w = new RunWatcher('0', dir);
    await w.poll();
    expect(w.status()).toMatchObject({ name: basename(dir), error: null, lines: 2 });
    await writeFile(join(dir, 'config.json'), record.slice(0, 200));
    await w.poll();
    expect(w.status()).toMatchObject({ name: basename(dir), error: null });
    await writeFile(join(dir, 'config.json'), record);
    await w.poll();
    expect(w.status().name).toBe(`mage (tictactoe) · ${basename(dir)}`);
  });

  it('follows a growing file: new lines only, a half-written line held back, a cut-back file reread', async () => {
    const dir = await partialRun(2);
    const all = await fixtureLines();
    const w = new RunWatcher('0', dir);
    expect((await w.poll()).lines).toHaveLength(2);
    expect(await w.poll()).toEqual({ lines: [], changed: false });
    const third = all[2]!;
    // Half a line, split inside a multi-byte character: nothing new yet, and the status says so.
    const bytes = Buffer.from(`${third.slice(0, 100)}é`);
    await appendFile(join(dir, 'metrics.jsonl'), bytes.subarray(0, bytes.length - 1));
    expect(await w.poll()).toMatchObject({ lines: [], changed: true });
    expect(w.status().partial).toBe(true);
    await writeFile(join(dir, 'metrics.jsonl'), `${all.slice(0, 3).join('\n')}\n`);
    // The file was rewritten (a resume cuts it back): read again from the start.
    await writeFile(join(dir, 'metrics.jsonl'), `${all[0]}\n`);
    await w.poll();
    expect(w.status()).toMatchObject({ lines: 1, partial: false });
    await appendFile(join(dir, 'metrics.jsonl'), `${all[1]}\n${all[2]}\n`);
    expect((await w.poll()).lines).toHaveLength(2);
    expect(w.status().lines).toBe(3);
  });

  it('says what is wrong with a missing directory or a directory without metrics', async () => {
    const missing = new RunWatcher('0', '/no/such/run-dir');
    await missing.poll();
    expect(missing.status().error).toMatch(/does not exist/);
    const empty = new RunWatcher('1', await mkdtemp(join(tmpdir(), 'mage-dash-empty-')));
    await empty.poll();
    expect(empty.status().error).toMatch(/has no metrics.jsonl yet/);
  });
});
