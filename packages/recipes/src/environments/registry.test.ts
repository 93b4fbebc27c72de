import { ConfigError, type EnvDefinitionV1, UnknownIdError } from '@mage-rl/core';
import { createNimEnv, firstLegalOpponent, nimGame, randomLegalOpponent } from '@mage-rl/core/testing';
import { describe, expect, it } from 'vitest';
import { evaluationSuites } from '../evaluation';
import { populationOf, resolveTrainConfig } from '../presets';
import { createTeacher } from '../teachers';
import { createEnvById, opponentFactory } from '../wiring';
import {
  addEnvDefinition,
  envDefinition,
  envRegistry,
  FIRST_PARTY_ENV_DEFINITIONS,
  REMOTE_ENV_IDS,
} from './registry';

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

/** Nim from core's testing kit as a two-player env package would define it. */
const nim: EnvDefinitionV1 = {
  specificationVersion: 'v1',
  id: 'nim',
  description: 'Nim: take one or two stones; whoever takes the last one wins',
  create: (options) => createNimEnv(options),
  defaults: { advantage: { trajGamma: 0.8 } },
  opponents: {
    ids: ['random', 'first-legal'],
    patterns: [],
    has: (id) => id === 'random' || id === 'first-legal',
    create: (id) => {
      if (id === 'random') return randomLegalOpponent(nimGame);
      if (id === 'first-legal') return firstLegalOpponent(nimGame);
      throw new UnknownIdError('opponent', id, ['random', 'first-legal']);
    },
    populations: {
      mixed: [
        { id: 'random', weight: 1 },
        { id: 'first-legal', weight: 1 },
      ],
    },
  },
};

/** The first-party envs in the registry's order: those in process, then those on servers. */
const IN_PROCESS_IDS = ['tictactoe', 'kuhn-poker', 'sokoban', 'treasure', 'doors', 'rps', 'tictactoe-frozen'];
const ON_SERVER_IDS = ['alfworld', 'webshop', 'openenv'];
const FIRST_PARTY_IDS = [...IN_PROCESS_IDS, ...ON_SERVER_IDS];

describe('env registry', () => {
  it('holds the first-party envs, each building its own id, and lists them for unknown ids', () => {
    expect(envRegistry().ids).toEqual(FIRST_PARTY_IDS);
    expect(REMOTE_ENV_IDS).toEqual(ON_SERVER_IDS);
    for (const d of FIRST_PARTY_ENV_DEFINITIONS) {
      // The envs on servers need their server's address (building the env does not contact it).
      const options = REMOTE_ENV_IDS.includes(d.id) ? { url: 'http://127.0.0.1:36001' } : {};
      expect(d.create(options).id).toBe(d.id);
      expect(envDefinition(d.id)).toBe(d);
    }
    const error = thrown(() => envDefinition('chess'));
    expect(error).toBeInstanceOf(UnknownIdError);
    expect(String((error as Error).message)).toMatch(
      /Known env ids: tictactoe, kuhn-poker, sokoban, treasure, doors, rps, tictactoe-frozen, alfworld, webshop, openenv/,
    );
    expect(() => envDefinition('toString')).toThrow(UnknownIdError);
  });

  it('refuses invalid definitions, built-in ids and ids of another package, naming the package', () => {
    const cases: [unknown, RegExp][] = [
      [42, /'bad' does not export an env definition/],
      [{ ...nim, specificationVersion: 'v2' }, /specificationVersion "v2"/],
      [{ ...nim, id: 'a b' }, /has id "a b"/],
      [{ ...nim, create: undefined }, /needs create\(options\)/],
      [{ ...nim, defaults: { seed: 3 } }, /sets defaults.seed/],
      [{ ...nim, opponents: { ...nim.opponents, create: 1 } }, /opponents.has\(id\) and opponents.create/],
      [{ ...nim, warmStart: { words: [] } }, /warmStart.teacher/],
      [{ ...nim, id: 'sokoban' }, /defines env 'sokoban', which is built in/],
    ];
    for (const [value, message] of cases) {
      const error = thrown(() => addEnvDefinition(value, { package: 'bad' }));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
    }
    expect(envRegistry().has('nim')).toBe(false);
  });

  it('an added env resolves with the generic layer under its defaults, records its package, and trains', () => {
    addEnvDefinition(nim, { package: 'nim-package' });
    expect(() => addEnvDefinition(nim, { package: 'other' })).toThrow(/already added/);
    expect(envRegistry().ids).toEqual([...FIRST_PARTY_IDS, 'nim']);
    const c = resolveTrainConfig({}, { env: 'nim', preset: 'smoke' });
    expect(c.env).toEqual({ id: 'nim', options: {}, package: 'nim-package' });
    expect(c.advantage.trajGamma).toBe(0.8);
    expect(c.rollout.seats).toEqual({ mixed: 0.5 });
    expect(c.population.preset).toBe('mixed');
    expect(c.eval.inDomain).toEqual(['random', 'first-legal']);
    expect(populationOf(c)?.name).toBe('nim-mixed');
    expect(evaluationSuites(c).map((s) => s.name)).toEqual(['in-domain']);
    expect(createEnvById('nim').id).toBe('nim');
    expect(opponentFactory('nim')?.('random').id).toBe('random');
    // The package is part of the config: another one is refused, a built-in env has none.
    expect(() => resolveTrainConfig({ env: { package: 'x' } }, { env: 'nim' })).toThrow(
      /env 'nim' was added from package 'nim-package'/,
    );
    expect(() => resolveTrainConfig({ env: { package: 'x' } }, { env: 'tictactoe' })).toThrow(
      /env 'tictactoe' is built in/,
    );
    expect(resolveTrainConfig({}, { env: 'tictactoe' }).env).not.toHaveProperty('package');
    // Unknown opponents and populations list the env's own.
    expect(() => resolveTrainConfig({ eval: { outOfDomain: ['minimax'] } }, { env: 'nim' })).toThrow(
      /Unknown opponent 'minimax'. Known opponent ids: random, first-legal/,
    );
    // No warm-start teacher: the error lists the envs that have one.
    expect(() => createTeacher(createEnvById('nim'))).toThrow(
      /Unknown teacher env 'nim'. Known teacher env ids: tictactoe, kuhn-poker, sokoban/,
    );
  });

  it('a single-agent env gets no population and no evaluation opponents', () => {
    const { opponents: _, ...solo } = nim;
    addEnvDefinition({ ...solo, id: 'solo-nim' }, { package: 'solo' });
    const c = resolveTrainConfig({}, { env: 'solo-nim' });
    expect(c.rollout.seats).toBe('first');
    expect(c.population.preset).toBe('none');
    expect(populationOf(c)).toBeUndefined();
    expect(() => resolveTrainConfig({ eval: { inDomain: ['random'] } }, { env: 'solo-nim' })).toThrow(
      /eval.inDomain must be empty for the single-agent env 'solo-nim'/,
    );
  });
});

describe('adaptationCeiling', () => {
  it("is the Bayes reader's pass@k of the hidden-target tasks under their options, and absent elsewhere", () => {
    expect(envDefinition('doors').adaptationCeiling?.({ doors: 4 }, 3)).toEqual([0.25, 0.5, 0.75]);
    const treasure = envDefinition('treasure').adaptationCeiling?.({}, 3) ?? [];
    expect(treasure.map((p) => +p.toFixed(6))).toEqual([+(1 / 9).toFixed(6), 1, 1]);
    expect(() => envDefinition('doors').adaptationCeiling?.({ doors: 99 }, 3)).toThrow(ConfigError);
    expect(envDefinition('tictactoe').adaptationCeiling).toBeUndefined();
  });

  it("is the Bayes reader's pass@k (sweeps) of Rock-Paper-Scissors over the training bots", () => {
    const rps = envDefinition('rps');
    expect(rps.adaptationCeiling?.({}, 3).map((p) => +p.toFixed(9))).toEqual([
      +(1 / 9).toFixed(9),
      +(8 / 9).toFixed(9),
      1,
    ]);
    expect(rps.adaptationCeiling?.({ maxTurns: 1 }, 2).map((p) => +p.toFixed(9))).toEqual([
      +(1 / 3).toFixed(9),
      1,
    ]);
    expect(() => rps.adaptationCeiling?.({ maxTurns: 12 }, 3)).toThrow(ConfigError);
  });
});
