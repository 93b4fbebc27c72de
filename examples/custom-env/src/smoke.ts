/**
 * Smoke run of the example package (`pnpm --filter @mage-rl/example-custom-env smoke`): the env passes the
 * conformance suite, a scripted agent that remembers the range it learned improves across attempts, and
 * mage-tiny trains on it for two iterations.
 */
import { buildMageTinyTokenizer, createMageTiny } from '@mage-rl/cli';
import { evaluate, runTraining } from '@mage-rl/core';
import { assertEnvConformance, scriptedPolicy } from '@mage-rl/core/testing';
import { computeAdvantages, ppoTokenLoss, rowsToAdvantageInputs } from '@mage-rl/gigpo';
import { createMemory } from '@mage-rl/reflection';
import { createHigherLower } from './higher-lower';

const env = createHigherLower({ max: 32, maxTurns: 3 });
assertEnvConformance(env);
console.log('conformance: all checks pass');

// Guess the middle of the range shown in the prompt; after a failed attempt, the note records the range
// reached, and the next attempt starts from it.
const policy = scriptedPolicy((request) => {
  const text = request.messages.map((m) => m.content).join('\n');
  if (request.phase === 'reflect') {
    const last = request.facts?.finished?.events.at(-1) ?? '';
    return `<remark>last ${last}</remark>`;
  }
  const range = [...text.matchAll(/range (\d+) (\d+)/g)].at(-1);
  let [low, high] = range ? [Number(range[1]), Number(range[2])] : [1, 32];
  // Notes of earlier attempts narrow the range further.
  for (const note of text.matchAll(/last guess (\d+) (higher|lower)/g)) {
    const g = Number(note[1]);
    if (note[2] === 'higher') low = Math.max(low, g + 1);
    else high = Math.min(high, g - 1);
  }
  return `<action>${Math.floor((low + high) / 2)}</action>`;
});

const { metrics } = await evaluate({
  env,
  policy,
  memory: createMemory({ mode: 'reflection+history' }),
  style: 'compact',
  episodes: 32,
  attempts: 3,
  seed: 1,
});
const pass = metrics.overall.perAttempt.map((a) => a.passAtK.rate.toFixed(2));
console.log(`pass@1..3: ${pass.join(' → ')}`);
if (!(metrics.overall.perAttempt[2]!.passAtK.rate > metrics.overall.perAttempt[0]!.passAtK.rate)) {
  throw new Error('expected success to rise across attempts');
}

// Train a freshly initialised mage-tiny on the new env for two iterations with MAGE's machinery: the
// core training loop, reflection memory, GiGPO advantages with the differential meta-reward, PPO.
const texts = ['guess 1 to 32. answer <action>N</action>', 'range 1 32', 'guess 16 higher', 'correct lower'];
const tokenizer = buildMageTinyTokenizer(texts);
const learner = await createMageTiny(tokenizer, { seed: 1, optimizer: { lr: 1e-3 } });
const result = await runTraining({
  env,
  learner,
  memory: createMemory({ mode: 'reflection' }),
  advantages: (rows) => computeAdvantages(rowsToAdvantageInputs(rows)).map((r) => r.advantage),
  loss: ppoTokenLoss(),
  seed: 1,
  iterations: 2,
  groups: 2,
  groupSize: 2,
  style: 'compact',
  context: 'transcript',
  maxTokens: { play: 8, reflect: 12 },
});
await learner.dispose();
console.log(`trained ${result.iterations} iterations of mage-tiny on higher-lower`);
