// Note recall (share of each attempt's facts its note states) of warm starts and trained runs, reflection memory,
// in-domain opponents, the same evaluation tasks for every policy of an env.
const T = await import('/work/main/packages/trainer/dist/index.js');
const R = await import('/work/main/packages/recipes/dist/index.js');
const C = '/work/main/.mage-cache/mage-tiny';
const E = '/work/expruns';
const jobs = [
  ['ttt share0 warm s2', 'tictactoe', {}, `${C}/tictactoe-laptop-0aa2a45c9026498c`],
  ['ttt share0 warm s3', 'tictactoe', {}, `${C}/tictactoe-laptop-35bf68f2345825c0`],
  ['ttt share0 warm s4', 'tictactoe', {}, `${C}/tictactoe-laptop-7ff513c8d5485707`],
  ['ttt share0 mage s2', 'tictactoe', {}, `${E}/ttt-notes/runs/mage-s2`],
  ['ttt share0 mage s3', 'tictactoe', {}, `${E}/ttt-notes/runs/mage-s3`],
  ['ttt share0 mage s4', 'tictactoe', {}, `${E}/ttt-notes/runs/mage-s4`],
  ['ttt share0.5 warm s2', 'tictactoe', {}, `${C}/tictactoe-laptop-7b8139c1709b2593`],
  ['ttt share1 warm s2', 'tictactoe', {}, `${C}/tictactoe-laptop-98e81e4e3f48d2b1`],
  ['ttt share1 mage s2', 'tictactoe', {}, `${E}/ttt-notes-a1/runs/mage-s2`],
  ['kuhn share1 mage s2', 'kuhn-poker', { mode: 'new-deal' }, `${E}/kuhn-notes-a1/runs/mage-s2`],
  ['kuhn share1 mage s3', 'kuhn-poker', { mode: 'new-deal' }, `${E}/kuhn-notes-a1/runs/mage-s3`],
  ['kuhn share0 mage s2', 'kuhn-poker', { mode: 'new-deal' }, `${E}/kuhn-notes/runs/mage-s2`],
];
for (const [name, env, options, dir] of jobs) {
  try {
    const config = R.resolveTrainConfig({ seed: 1001, env: { options } }, { preset: 'laptop', method: 'mage', env });
    const loaded = await T.loadPolicy({ policy: dir, env, envOptions: options, style: 'compact' });
    const r = await T.evaluateWithMemory({ config, policy: loaded.policy, method: 'mage', memory: 'reflection', opponents: config.eval.inDomain, episodes: 8, attempts: 3, seed: 1001, baseline: false });
    const o = r.result.metrics.overall;
    console.log(`${name}: notes ${o.reflectTurns}, recall ${(100 * (o.noteRecall ?? NaN)).toFixed(1)}%, cut ${(100 * (o.cutReflectionRate?.rate ?? NaN)).toFixed(1)}%, valid ${(100 * (1 - o.invalidReflectionRate.rate)).toFixed(1)}%`);
    await loaded.dispose();
  } catch (e) { console.log(`${name}: ${e.message}`); }
}
