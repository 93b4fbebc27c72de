/**
 * Renders a chart's Vega-Lite spec to SVG in Node (vega's headless view; no canvas or browser). vega and
 * vega-lite are loaded on first use, so importing this package (and starting `mage`) stays fast.
 */

import type { TopLevelSpec } from 'vega-lite';

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [{ parse, View }, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
