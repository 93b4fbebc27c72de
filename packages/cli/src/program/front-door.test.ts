import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..');

/** The CLI's source files, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.includes('.test') ? [path] : [];
  });
}

describe('the learning commands', () => {
  it('call the trainer through its public API only (architecture/cli.md)', () => {
    const offending = sources(SRC).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const building = text.match(
        /\b(trainPipeline|evaluatePolicy|pretrainMageTiny|cachedWarmStart|evaluateMethod|evaluateConfig)\b|@mage-rl\/trainer\/internals/g,
      );
      return building ? [`${relative(SRC, file)}: ${[...new Set(building)].join(', ')}`] : [];
    });
    expect(offending).toEqual([]);
  });
});
