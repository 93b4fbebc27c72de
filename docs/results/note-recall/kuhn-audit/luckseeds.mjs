// Deal luck of the eval task sets for several eval seeds (tasks do not depend on the policy): builds the tasks
// with an always-PASS scripted policy, reconstructs deals from task seeds, and scores the trained policy's
// empirical strategy (cell EVs from deals.mjs, stall = 0) on them vs its uniform-deal value.
const T = await import('/work/main/packages/trainer/dist/index.js');
const R = await import('/work/main/packages/recipes/dist/index.js');
const { createRng } = await import('/work/main/packages/core/dist/index.js');
const D = ['JQ', 'JK', 'QJ', 'QK', 'KJ', 'KQ'];
const CELL = { // [first x D, second x D] printed by deals.mjs
  conservative: [1.00, -2.00, 0.86, -1.72, 1.00, 1.00, 1.00, 1.00, 0.00, 1.00, -0.07, -2.00],
  aggressive: [-2.00, -2.00, 1.72, -1.72, 1.65, 2.00, 2.00, 2.00, -0.07, 2.00, -0.07, -2.00],
  intermediate: [1.00, -2.00, 0.86, -1.72, 1.00, 1.65, 1.00, 1.00, -0.07, 2.00, -0.07, -2.00],
};
const policy = { specificationVersion: 'v1', id: 'always-pass', async generate(reqs) {
  return reqs.map((r) => ({ text: r.phase === 'play' ? '<action> PASS </action>' : '<remark> x </remark>', promptTokens: [], tokens: [], logprobs: [], finishReason: 'stop' }));
} };
for (const seed of process.argv.slice(2).map(Number)) {
  const config = R.resolveTrainConfig({ seed, env: { options: { mode: 'new-deal' } }, eval: { earlyStop: false, episodes: 1024 } }, { preset: 'laptop', method: 'grpo', env: 'kuhn-poker' });
  const r = await T.evaluateWithMemory({ config, policy, method: 'grpo', memory: 'none', opponents: config.eval.inDomain, episodes: 1024, attempts: 1, seed, baseline: false });
  const out = [];
  for (const opp of Object.keys(CELL)) {
    const v = CELL[opp]; const mu = v.reduce((a, b) => a + b) / 12;
    let s = 0, n = 0;
    for (const sl of r.result.batch.slots) { if (sl.task.opponentId !== opp) continue; const dl = createRng(sl.task.seed).split('deal').pick(D.map((x) => `deal:${x}`)).slice(5); s += v[(sl.task.seat === 'second' ? 6 : 0) + D.indexOf(dl)]; n++; }
    out.push(`${opp} ${(s / n - mu >= 0 ? '+' : '')}${(s / n - mu).toFixed(3)}`);
  }
  console.log(`eval seed ${seed}: deal luck ${out.join(' | ')}`);
}
