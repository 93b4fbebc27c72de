import { createRng } from '@mage-rl/core';
import { generateSokobanRooms } from '@mage-rl/envs/sokoban';
import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture } from '../testing/cli.test-helper';

describe('mage sokoban generate', () => {
  it('--json prints the rooms of the seeds (envs generateSokobanRooms)', async () => {
    const c = capture();
    const code = await runCli(
      ['sokoban', 'generate', '--boxes', '2', '--count', '3', '--seed', '10', '--json'],
      c.io,
    );
    expect(code).toBe(0);
    expect(JSON.parse(c.out())).toEqual(
      generateSokobanRooms({ boxes: 2, count: 3, seed: 10, size: 6, rngOf: createRng }),
    );
  });

  it('prints a readable listing and honours --size', async () => {
    const c = capture();
    expect(await runCli(['sokoban', 'generate', '--boxes', '1', '--count', '2', '--size', '7'], c.io)).toBe(
      0,
    );
    const text = c.out();
    expect(text).toMatch(/^seed 1: 1 box, optimal \d+ moves\n#######\n/);
    expect(text).toMatch(/seed\s+boxes\s+optimal moves/);
  });

  it('rejects bad numbers with a ConfigError message', async () => {
    const c = capture();
    expect(await runCli(['sokoban', 'generate', '--boxes', 'two'], c.io)).toBe(1);
    expect(c.err()).toMatch(/--boxes must be an integer from 1 to 6, got 'two'.*INVALID_CONFIG/);
  });
});
