import { defineConfig, type Options } from 'tsup';

/**
 * `MAGE_BUILD_DECLARATIONS=0` builds the JavaScript only, no `.d.ts`: `npm run demo` runs `dist` and needs
 * no declarations, which are most of a build's time (turbo hashes the variable, so a build without them
 * is never reused as a full one). Any other value, or none, builds them.
 */
const declarations = process.env.MAGE_BUILD_DECLARATIONS !== '0';

/**
 * The declarations read the other `@mage-rl/*` packages' built `.d.ts` (turbo builds them first), not
 * their sources through the `@mage-rl/source` condition: each package's declaration build then
 * type-checks its own sources only, not those of everything it imports. The output is the same (those
 * packages stay imports either way).
 */
function declarationOptions(own: Options['dts']): NonNullable<Options['dts']> {
  if (!declarations || own === false) return false;
  return { ...(typeof own === 'object' ? own : {}), compilerOptions: { customConditions: [] } };
}

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
    dts: declarationOptions(overrides.dts),
  });
}
