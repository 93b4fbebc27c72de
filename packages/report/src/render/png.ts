/** SVG → PNG with resvg, using the DejaVu Sans font shipped by `dejavu-fonts-ttf` (no system fonts needed). */

import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';

const require = createRequire(import.meta.url);

let fontFiles: string[] | undefined;
function fonts(): string[] {
  fontFiles ??= ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((f) =>
    require.resolve(`dejavu-fonts-ttf/ttf/${f}`),
  );
  return fontFiles;
}

export function renderPng(svg: string, options: { scale?: number } = {}): Buffer {
  const resvg = new Resvg(svg, {
    background: '#ffffff',
    fitTo: { mode: 'zoom', value: options.scale ?? 1.5 },
    font: { fontFiles: fonts(), loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' },
  });
  return Buffer.from(resvg.render().asPng());
}
