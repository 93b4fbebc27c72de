/**
 * The code and machine the trainer records beside its results (a run's `machine.json`, experiment
 * evaluations, `mage eval --json`): core's `describeCode` from the trainer's own location, so the commit is
 * that of the checkout the trainer runs from (not of the directory the command runs in), with the versions
 * of the trainer and the `@mage-rl/*` packages it computes with. See architecture/records.md.
 */

import { type CodeV1, describeCode, describeMachine, type MachineV1 } from '@mage-rl/core';
import { runtimeVersions } from '@mage-rl/learner';

/** The `@mage-rl/*` packages the trainer depends on, whose versions a description lists. */
const PACKAGES = [
  '@mage-rl/gigpo',
  '@mage-rl/learner',
  '@mage-rl/opponents',
  '@mage-rl/recipes',
  '@mage-rl/reflection',
  '@mage-rl/report',
  '@mage-rl/serve',
  '@mage-rl/tinker',
];

/** The code the trainer runs: commit and dirty flag of its checkout (or why there is none), package versions. */
export const trainerCode = (): CodeV1 => describeCode({ from: import.meta.url, packages: PACKAGES });

/** This machine with the learner's numeric runtime, as records describe it. */
export const trainerMachine = (): MachineV1 => describeMachine({ runtime: runtimeVersions() });
