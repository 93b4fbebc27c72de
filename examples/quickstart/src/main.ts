// Train mage-tiny with MAGE on Tic-Tac-Toe, then evaluate it for 3 attempts against an opponent it never
// trained against. Usage: `pnpm --filter @mage-rl/example-quickstart start` (laptop preset) or `smoke`.

import { loadMageTiny } from '@mage-rl/learner';
import { createEnvById, evaluateMethod, type RunPresetId } from '@mage-rl/recipes';
import { trainPipeline } from '@mage-rl/trainer';

const preset = (process.argv[2] ?? 'smoke') as RunPresetId;
const run = await trainPipeline({
  env: 'tictactoe',
  method: 'mage',
  preset,
  seed: 1,
  runDir: `runs/quickstart-${preset}`,
  // A second call continues the run instead of refusing its directory (a finished run trains no more).
  resume: true,
  log: (line) => console.log(line),
});
console.log(`trained ${run.result.iterations} iterations; report: ${run.report.markdown}`);

// The trained weights are in the last checkpoint; the warm start gives the tokenizer and the shape.
const learner = await loadMageTiny(run.warmStart);
await learner.load(run.result.lastCheckpoint as string);
const { metrics } = await evaluateMethod({
  env: createEnvById('tictactoe'),
  policy: learner.policy,
  method: 'mage',
  opponents: ['mcts-1000'],
  episodes: preset === 'smoke' ? 2 : 32,
  context: run.config.rollout.context,
  style: run.config.rollout.style,
  maxTokens: run.config.rollout.maxTokens,
  seed: 'quickstart-eval',
});
const pass = metrics.overall.perAttempt.map((a) => `${(100 * a.passAtK.rate).toFixed(1)}%`);
console.log(`vs mcts-1000, cumulative success by attempt: ${pass.join(' → ')}`);
await learner.dispose();
