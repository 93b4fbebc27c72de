import { readFile } from 'node:fs/promises';
import { compile } from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { parseMetrics, runMetrics } from '../metrics/run-metrics';
import { renderSvg } from '../render/render-svg';
import { CHART_DATA, type ChartDef, chartSpec, PALETTE } from './chart-spec';
import { reportFigures, runCharts } from './run-charts';

/** The metrics of a real smoke run (Tic-Tac-Toe, 12 iterations). */
async function fixtureMetrics(id: string) {
  const text = await readFile(new URL('../__fixtures__/ttt-smoke-metrics.jsonl', import.meta.url), 'utf8');
  return runMetrics(id, 'mage (tictactoe)', parseMetrics(text).lines);
}

describe('charts', () => {
  it('defines every curve of a run from its metrics, with a point per iteration', async () => {
    const run = await fixtureMetrics('0');
    const charts = runCharts([run]);
    const byId = new Map(charts.map((c) => [c.id, c]));
    expect([...byId.keys()]).toEqual(
      expect.arrayContaining([
        'pass-at-k',
        'attempt-gain',
        'reward',
        'invalid',
        'kl-entropy',
        'loss',
        'throughput',
        'credit-advantage',
        'credit-fractions',
        'per-opponent',
        'eval-inDomain',
        'eval-outOfDomain',
        'eval-over-time',
        'eval-per-opponent',
      ]),
    );
    // pass@1..3 over 12 iterations.
    expect(byId.get('pass-at-k')!.points).toHaveLength(36);
    expect(byId.get('loss')!.points.map((p) => p.x)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // The evaluation curves carry their Wilson intervals.
    expect(byId.get('eval-inDomain')!.points.every((p) => p.lo !== undefined && p.hi !== undefined)).toBe(
      true,
    );
  });

  it('names runs in the legend only when several are overlaid', async () => {
    const one = runCharts([await fixtureMetrics('0')]).find((c) => c.id === 'loss')!;
    expect(new Set(one.points.map((p) => p.label))).toEqual(new Set(['loss']));
    const a = await fixtureMetrics('0');
    const two = runCharts([a, { ...a, id: '1', name: 'other' }]).find((c) => c.id === 'loss')!;
    expect(new Set(two.points.map((p) => p.label))).toEqual(new Set([`${a.name}: loss`, 'other: loss']));
  });

  it('compiles to Vega with the named dataset the page updates, and renders to SVG in Node', async () => {
    const chart = runCharts([await fixtureMetrics('0')]).find((c) => c.id === 'pass-at-k')!;
    const spec = chartSpec(chart);
    const vg = compile(spec).spec;
    expect(vg.data?.[0]?.name).toBe(CHART_DATA);
    const svg = await renderSvg(spec);
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('Rollout pass@k per attempt');
    expect(svg).toContain('pass@3');
  });

  it('shows long legend labels whole, one per row, and gives up to twelve series their own colour', async () => {
    const labels = Array.from(
      { length: 9 },
      (_, i) => `mage[advantage.episodeScore=meta-reward] s${i} (reflection)`,
    );
    const chart: ChartDef = {
      id: 'c',
      title: 'success',
      xTitle: 'attempt k',
      yTitle: 'pass@k',
      percent: true,
      points: labels.map((label) => ({ label, x: 1, y: 0.5 })),
      empty: '',
    };
    const spec = chartSpec(chart) as unknown as {
      layer: { encoding: { color: { legend: { columns: number; labelLimit: number } } } }[];
    };
    const legend = spec.layer[0]!.encoding.color.legend;
    expect(legend.columns).toBe(1);
    expect(legend.labelLimit).toBeGreaterThanOrEqual(9 * labels[0]!.length);
    expect(new Set(PALETTE).size).toBeGreaterThanOrEqual(labels.length);
    // The whole label is drawn: Vega truncates with an ellipsis past labelLimit.
    const svg = await renderSvg(chartSpec(chart));
    expect(svg).toContain('s8 (reflection)');
    expect(svg).not.toContain('…');
    const short = chartSpec({
      ...chart,
      points: [{ label: 'mage', x: 1, y: 0.5 }],
    }) as unknown as typeof spec;
    expect(short.layer[0]!.encoding.color.legend.columns).toBe(2);
  });

  it('groups the report figures, leaving out per-opponent charts without data', async () => {
    const run = await fixtureMetrics('0');
    expect(reportFigures([run]).map((f) => f.file)).toEqual([
      'success-by-attempt',
      'training-curves',
      'credit',
      'per-opponent',
    ]);
    const bare = { ...run, rollouts: [], evals: [] };
    expect(reportFigures([bare]).map((f) => f.file)).not.toContain('per-opponent');
  });
});
