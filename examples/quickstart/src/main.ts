// Train mage-tiny with MAGE on Tic-Tac-Toe, then evaluate it for 3 attempts against an opponent it never
// trained against. Usage: `npm run start` (laptop preset) or `npm run smoke` (see README.md).
import { createTrainer } from '@mage-rl/trainer';

const preset = process.argv[2] === 'laptop' ? 'laptop' : 'smoke';
const trainer = createTrainer({
  env: 'tictactoe',
  method: 'mage',
  preset,
  seed: 1,
  runDir: `runs/quickstart-${preset}`,
});
// `resume`: a second call continues the run instead of refusing its directory (a finished run trains no more).
const run = await trainer.train({
  resume: true,
  onEvent: (e) => {
    if (e.type === 'log') console.log(e.line);
  },
});
console.log(`trained ${run.result.iterations} iterations; report: ${run.report.markdown}`);

// The policy is the run's last checkpoint on its warm start.
const { result } = await trainer.evaluate({
  policy: run.runDir,
  opponents: ['mcts-1000'],
  episodes: preset === 'smoke' ? 2 : 32,
  seed: 'quickstart-eval',
  // Only the policy with its memory (no second run without it: `withoutMemory`, the memory benefit).
  baseline: false,
});
const pass = result.metrics.overall.perAttempt.map((a) => `${(100 * a.passAtK.rate).toFixed(1)}%`);
console.log(`vs mcts-1000, cumulative success by attempt: ${pass.join(' → ')}`);
