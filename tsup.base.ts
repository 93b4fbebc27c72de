import { defineConfig, type Options } from 'tsup';

/**
 * `MAGE_BUILD_DECLARATIONS=0` builds the JavaScript only, no `.d.ts`: `npm run demo` runs `dist` and needs
 * no declarations, which are most of a build's time (turbo hashes the variable, so a build without them
 * is never reused as a full one). Any other value, or none, builds them.
 */
const declarations = process.env.MAGE_BUILD_DECLARATIONS !== '0';

/**
 * The build every package shares: ESM for Node 20 with declarations and source maps, `dist` cleaned first.
 * Each package's `tsup.config.ts` names its entry points and, where it needs to, overrides a setting.
 */
export function packageConfig(entry: NonNullable<Options['entry']>, overrides: Omit<Options, 'entry'> = {}) {
  return defineConfig({
    entry,
    format: ['esm'],
    sourcemap: true,
    clean: true,
    target: 'node20',
    ...overrides,
    dts: declarations ? (overrides.dts ?? true) : false,
  });
}
