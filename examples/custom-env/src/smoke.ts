/**
 * Smoke run of the example package (`npm run smoke`): the env passes the conformance suite, and a scripted
 * agent that remembers the range it learned improves across attempts. Training it is the `mage` CLI's job
 * (`mage train --env-package <this package>`), which needs no code here.
 */
import { evaluate } from '@mage-rl/core';
import { assertEnvConformance, scriptedPolicy } from '@mage-rl/core/testing';
import { createMemory } from '@mage-rl/reflection';
import { createHigherLower } from './higher-lower.js';

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
