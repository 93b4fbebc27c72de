// A trained Kuhn policy's attempt-1 chips per hand over many hands (no memory, K = 1), beside the note-blind teacher.
const T = await import('/work/main/packages/trainer/dist/index.js');
const R = await import('/work/main/packages/recipes/dist/index.js');
const [run, episodes] = [process.argv[2], Number(process.argv[3] ?? 1024)];
const config = R.resolveTrainConfig(
  { seed: 77, env: { options: { mode: 'new-deal' } }, eval: { earlyStop: false, episodes } },
  { preset: 'laptop', method: 'grpo', env: 'kuhn-poker' },
);
const env = R.createEnvById('kuhn-poker', config.env.options);
const loaded = await T.loadPolicy({ policy: run, env: 'kuhn-poker', envOptions: config.env.options, style: 'compact' });
for (const [name, policy] of [['teacher', R.createTeacher(env, { style: 'compact' })], ['run', loaded.policy]]) {
  const r = await T.evaluateWithMemory({ config, policy, method: 'grpo', memory: 'none', opponents: config.eval.inDomain, episodes, attempts: 1, seed: 77, baseline: false });
  const m = r.result.metrics;
  const c = (s) => (s.perAttempt[0].meanReturn / 5).toFixed(3);
  console.log(`${name}: overall ${c(m.overall)} | ${Object.entries(m.byOpponent).map(([o, s]) => `${o} ${c(s)} (${s.metaEpisodes})`).join(' | ')}`);
}
await loaded.dispose();
