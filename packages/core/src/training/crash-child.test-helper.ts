/**
 * Child process of the crash test: `node --import tsx --conditions=@mage-rl/source crash-child.test-helper.ts
 * <runDir>` resumes (or starts) the crash-test run and prints one JSON line per training event.
 */

import { runTraining } from './iterate-training';
import { crashRunOptions, nimLearner, withBallast } from './nim-training.test-helper';

const runDir = process.argv[2];
if (runDir === undefined) throw new Error('usage: crash-child <runDir>');
await runTraining({
  ...crashRunOptions(runDir, withBallast(nimLearner())),
  onEvent: (e) => {
    const line: Record<string, unknown> = { type: e.type };
    if ('iteration' in e) line.iteration = e.iteration;
    if (e.type === 'run-start') line.startIteration = e.startIteration;
    if (e.type === 'checkpoint-saved') line.dir = e.dir;
    process.stdout.write(`${JSON.stringify(line)}\n`);
  },
});
