import { describe, expect, it } from 'vitest';
import { renderPng } from './png';
import { chartGrid, escapeXml, lineChart, niceTicks } from './svg-chart';

describe('svg charts', () => {
  it('picks round ticks', () => {
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0, 150, 6)).toEqual([0, 25, 50, 75, 100, 125, 150]);
    expect(niceTicks(3, 3)).toEqual([3]);
  });

  it('draws one path per multi-point series, whiskers for intervals, and escapes text', () => {
    const chart = lineChart({
      title: 'Success <per> attempt',
      xLabel: 'attempt',
      yLabel: 'success',
      percent: true,
      yMin: 0,
      yMax: 1,
      integerX: true,
      series: [
        {
          name: 'mage',
          points: [
            { x: 1, y: 0.2, lo: 0.1, hi: 0.3 },
            { x: 2, y: 0.5 },
            { x: 3, y: 0.6 },
          ],
        },
        { name: 'grpo & co', points: [{ x: 1, y: 0.3 }], dashed: true },
      ],
    });
    expect(chart.svg).toContain('Success &#60;per&#62; attempt');
    expect(chart.svg).toContain('grpo &#38; co');
    expect(chart.svg.match(/stroke-width="2" fill="none"/g)).toHaveLength(1); // only 'mage' has a line
    expect(chart.svg).toContain('stroke-opacity="0.6"'); // the whisker
    expect(chart.svg).toContain('100%');
  });

  it('says so when there is no data', () => {
    expect(
      lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [], emptyText: 'no eval yet' }).svg,
    ).toContain('no eval yet');
  });

  it('renders a grid to a PNG', () => {
    const c = lineChart({
      title: 'a',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        {
          name: 's',
          points: [
            { x: 0, y: 1 },
            { x: 1, y: 2 },
          ],
        },
      ],
    });
    const grid = chartGrid([c, c, c], 2, 'Report');
    expect(grid.width).toBe(1280);
    expect(grid.height).toBe(840);
    const png = renderPng(grid.svg, { scale: 1 });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(1280); // IHDR width
    expect(png.readUInt32BE(20)).toBe(840);
  });

  it('escapes all XML specials', () => {
    expect(escapeXml(`<a href="x">&'`)).toBe('&#60;a href=&#34;x&#34;&#62;&#38;&#39;');
  });
});
