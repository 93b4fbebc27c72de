import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installLine, installSet } from './pack-all.mjs';

describe('pack-all: what a project installs from the tarballs', () => {
  it('names the packages asked for and every @mage-rl package they import', () => {
    const light = ['core', 'env-remote', 'envs', 'gigpo', 'opponents', 'recipes', 'reflection', 'spec'];
    expect(installSet(['recipes'])).toEqual({ names: light.map((s) => `@mage-rl/${s}`), mlRuntime: false });
    expect(installSet(['@mage-rl/envs']).names).toEqual(['@mage-rl/envs', '@mage-rl/spec']);
    const trainer = installSet(['trainer']);
    expect(trainer.mlRuntime).toBe(true);
    expect(trainer.names).toContain('@mage-rl/learner');
    expect(trainer.names).not.toContain('@mage-rl/cli');
  });

  it('prints one npm install line of absolute tarball paths, with the onnxruntime variable only when needed', () => {
    expect(installLine(['envs'], 'tarballs')).toBe(
      `npm install ${join(process.cwd(), 'tarballs', 'mage-rl-envs-0.1.0.tgz')} ${join(process.cwd(), 'tarballs', 'mage-rl-spec-0.1.0.tgz')}`,
    );
    expect(installLine(['serve'], '/t')).toMatch(
      /^ONNXRUNTIME_NODE_INSTALL=skip npm install \/t\/mage-rl-core-/,
    );
  });

  it('refuses a name that is not a package here, listing the packages', () => {
    expect(() => installSet(['envz'])).toThrow(/not a package of this repository: envz \(packages: .*envs/);
  });
});
