import { describe, expect, it } from 'vitest';
import { renderPng } from './png';
import { chartGrid, escapeXml, vegaChart } from './svg-chart';

type ChartInput = Parameters<typeof vegaChart>[0];

/** A chart of `points` with plain titles unless `input` says otherwise. */
const chartOf = (points: ChartInput['points'], input: Partial<ChartInput> = {}) =>
  vegaChart({ id: 'c', title: 't', xTitle: 'x', yTitle: 'y', empty: '', points, ...input });

describe('report charts (Vega-Lite specs rendered in Node)', () => {
  it('renders a chart with its title, legend labels escaped, intervals and a percent axis', async () => {
    const chart = await chartOf(
      [
        { label: 'mage', x: 1, y: 0.2, lo: 0.1, hi: 0.3 },
        { label: 'mage', x: 2, y: 0.5 },
        { label: 'grpo & co', x: 1, y: 0.3, dashed: true },
      ],
      { title: 'Success <per> attempt', xTitle: 'attempt', yTitle: 'success', percent: true, empty: 'none' },
    );
    expect(chart.width).toBeGreaterThan(400);
    expect(chart.height).toBeGreaterThan(200);
    expect(chart.svg).toContain('Success &lt;per&gt; attempt');
    expect(chart.svg).toContain('grpo &amp; co');
    expect(chart.svg).toContain('100%');
  });

  it('starts the x axis at the first point, not at zero (attempts are 1..K)', async () => {
    const chart = await chartOf([
      { label: 'mage', x: 1, y: 0.2 },
      { label: 'mage', x: 3, y: 0.5 },
    ]);
    const ticks = [...chart.svg.matchAll(/<text[^>]*>(\d+)<\/text>/g)].map((m) => Number(m[1]));
    expect(ticks).toContain(1);
    expect(ticks).toContain(3);
    expect(ticks).not.toContain(0);
  });

  it("labels a lone point's x as an integer", async () => {
    const chart = await chartOf([{ label: 'mage', x: 300, y: 0.5 }]);
    const labels = [...chart.svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(labels).toContain('300');
    expect(labels.filter((l) => /^\d{3}\.\d+$/.test(l ?? ''))).toEqual([]);
  });

  it('says so when there is no data', async () => {
    const chart = await chartOf([], { empty: 'no eval yet' });
    expect(chart.svg).toContain('no eval yet');
  });

  it('renders a grid to a PNG', async () => {
    const c = await chartOf([
      { label: 's', x: 0, y: 1 },
      { label: 's', x: 1, y: 2 },
    ]);
    const grid = chartGrid([c, c, c], 2, 'Report');
    expect(grid.width).toBe(2 * c.width);
    expect(grid.height).toBe(2 * c.height + 40);
    const png = renderPng(grid.svg, { scale: 1 });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(grid.width); // IHDR width
    expect(png.readUInt32BE(20)).toBe(grid.height);
  });

  it('escapes all XML specials', () => {
    expect(escapeXml(`<a href="x">&'`)).toBe('&#60;a href=&#34;x&#34;&#62;&#38;&#39;');
  });
});
