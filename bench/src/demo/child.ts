/**
 * The child process of `pnpm bench demo`: profiles the demo's pipeline (`profileDemo`) with its
 * options as a JSON argument, the start-up (Node, the tsx loader and the packages' imports) as the first
 * stage, and prints the profile as JSON on its last line.
 */

import { createStageProfiler } from './stage-profiler';

const started = { wall: performance.now(), cpu: process.cpuUsage() };
const profiler = createStageProfiler();
profiler.mark('start-up (node, imports)');
const { profileDemo } = await import('./profile-demo');
const options = JSON.parse(process.argv[2] ?? '{}');
const profile = await profileDemo({
  ...options,
  profiler,
  log: (line: string) => process.stderr.write(`${line}\n`),
});
// The start-up stage began when this module ran; add the time Node took before it.
const [first, ...rest] = profile.stages;
const stages =
  first === undefined
    ? []
    : [
        {
          ...first,
          wallSeconds: first.wallSeconds + started.wall / 1000,
          cpuSeconds: first.cpuSeconds + (started.cpu.user + started.cpu.system) / 1e6,
        },
        ...rest,
      ];
process.stdout.write(`${JSON.stringify({ ...profile, stages })}\n`);
