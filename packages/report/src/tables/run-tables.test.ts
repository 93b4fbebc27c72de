import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseMetrics, runMetrics } from '../metrics/run-metrics';
import { evalOpponentTable, evalSummaryTable } from './run-tables';

async function fixtureRun() {
  const text = await readFile(new URL('../__fixtures__/ttt-smoke-metrics.jsonl', import.meta.url), 'utf8');
  return runMetrics('0', 'mage (tictactoe)', parseMetrics(text).lines);
}

describe('run report tables', () => {
  it('lists pass@k by attempt with Wilson intervals at the last evaluation, a row per run', async () => {
    const run = await fixtureRun();
    const table = evalSummaryTable([run, { ...run, name: 'other' }], 'inDomain');
    expect(table[0]).toMatch(/^\| run \| updates \| meta-episodes \| pass@k/);
    expect(table).toHaveLength(5);
    expect(table.at(-1)).toBe('');
    const row = table[2]!;
    expect(row.startsWith('| mage (tictactoe) | 12 | ')).toBe(true);
    // Three attempts, each with its interval, then the gain in points and the invalid-action rate.
    expect(row.match(/\d+\.\d% \[\d+\.\d%, \d+\.\d%\]/g)).toHaveLength(3);
    expect(row).toMatch(/ -?\d+\.\d pts \| \d+\.\d% \|$/);
  });

  it('says so when no run has an evaluation, and leaves the opponent table out', async () => {
    const run = { ...(await fixtureRun()), evals: [] };
    expect(evalSummaryTable([run], 'outOfDomain')).toEqual(['_No evaluation recorded._', '']);
    expect(evalOpponentTable([run])).toEqual([]);
  });

  it('has a row per domain and opponent of the last evaluation', async () => {
    const run = await fixtureRun();
    const table = evalOpponentTable([run]);
    const rows = table.slice(2, -1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => /^\| mage \(tictactoe\) \| (in|out) \| \S+ \| /.test(r))).toBe(true);
    expect(rows.some((r) => r.includes('| out |'))).toBe(true);
  });
});
