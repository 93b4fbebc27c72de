import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnknownIdError } from '@mage-rl/core';
import { loadEnvPackage, resolveEnvPackage } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { createCliOpponent, createEnv, ENV_IDS, knownOpponentIds, matchGame, solvableGame } from './registry';

describe('cli registry', () => {
  it('creates every env by id and fails on unknown ids with the known list', () => {
    expect(ENV_IDS).toEqual([
      'tictactoe',
      'kuhn-poker',
      'sokoban',
      'treasure',
      'doors',
      'rps',
      'tictactoe-frozen',
      'alfworld',
      'webshop',
      'openenv',
    ]);
    for (const id of ENV_IDS) expect(createEnv(id, { url: 'http://127.0.0.1:36001' }).id).toBe(id);
    expect(() => createEnv('chess')).toThrow(UnknownIdError);
    expect(() => createEnv('chess')).toThrow(
      /Known env ids: tictactoe, kuhn-poker, sokoban, treasure, doors, rps, tictactoe-frozen, alfworld, webshop, openenv/,
    );
    expect(() => createEnv('toString')).toThrow(UnknownIdError);
  });

  it('creates opponents by env and id', () => {
    expect(createCliOpponent('tictactoe', 'mcts-25').id).toBe('mcts-25');
    expect(createCliOpponent('kuhn-poker', 'cfr').id).toBe('cfr');
    expect(knownOpponentIds('tictactoe')).toContain('mcts-<N> (N = 1..9999999 simulations per move)');
    expect(knownOpponentIds('tictactoe')).not.toContain('mcts-100');
    expect(knownOpponentIds('kuhn-poker')).toContain('intermediate');
    expect(() => createCliOpponent('sokoban', 'random')).toThrow(/Known env ids: tictactoe, kuhn-poker/);
    expect(matchGame('kuhn-poker').game.numPlayers).toBe(2);
    expect(solvableGame('kuhn').envId).toBe('kuhn-poker');
    expect(() => solvableGame('tictactoe')).toThrow(/Known game ids: kuhn/);
  });
});

describe('env packages', () => {
  it('resolves a package name from the working directory through its exports, and takes a default export', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mage-env-pkg-'));
    try {
      const pkg = join(root, 'node_modules', '@acme', 'coin-env');
      await mkdir(join(pkg, 'lib'), { recursive: true });
      await writeFile(
        join(pkg, 'package.json'),
        JSON.stringify({
          name: '@acme/coin-env',
          type: 'module',
          exports: { '.': { import: './lib/index.js' } },
        }),
      );
      await writeFile(
        join(pkg, 'lib', 'index.js'),
        `export default { specificationVersion: 'v1', id: 'coin', description: 'a coin', defaults: {},
           create: () => ({ specificationVersion: 'v1', id: 'coin' }) };\n`,
      );
      const cwd = join(root, 'project', 'src');
      await mkdir(cwd, { recursive: true });
      expect(resolveEnvPackage('@acme/coin-env', cwd)).toBe(join(pkg, 'lib', 'index.js'));
      expect(() => resolveEnvPackage('@acme/coin-env/extra', cwd)).toThrow(/exports no '.\/extra'/);
      const definition = await loadEnvPackage('@acme/coin-env', cwd);
      expect(definition.id).toBe('coin');
      expect(createEnv('coin').id).toBe('coin');
      expect(() => createCliOpponent('coin', 'random')).toThrow(
        /Unknown env 'coin'. Known env ids: tictactoe, kuhn-poker/,
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
