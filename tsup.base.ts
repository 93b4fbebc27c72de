import { defineConfig, type Options } from 'tsup';

/**
 * The build every package shares: ESM for Node 20 with declarations and source maps, `dist` cleaned first.
 * Each package's `tsup.config.ts` names its entry points and, where it needs to, overrides a setting.
 */
export function packageConfig(entry: NonNullable<Options['entry']>, overrides: Omit<Options, 'entry'> = {}) {
  return defineConfig({
    entry,
    format: ['esm'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    ...overrides,
  });
}
