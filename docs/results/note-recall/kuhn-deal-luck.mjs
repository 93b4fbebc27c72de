// The note-blind Kuhn teacher (a fixed strategy that reads no text) on the experiment's own evaluation tasks
// (seed s), no memory: per-attempt chips per hand (return / chipReward 5).
const R = await import('/work/main/packages/recipes/dist/index.js');
for (const seed of process.argv.slice(2).map(Number)) {
  const config = R.resolveTrainConfig(
    { seed, env: { options: { mode: 'new-deal' } }, eval: { earlyStop: false, episodes: 256 } },
    { preset: 'laptop', method: 'mage', env: 'kuhn-poker' },
  );
  const env = R.createEnvById('kuhn-poker', config.env.options);
  const results = await R.evaluateConfig({ config, policy: R.createTeacher(env, { style: 'compact' }), memory: 'none' });
  for (const r of results) {
    const m = r.result.metrics;
    const line = (s) => s.perAttempt.map((a) => (a.meanReturn / 5).toFixed(3)).join(' → ');
    console.log(`seed ${seed} [${r.suite.name}] overall ${line(m.overall)} | ${Object.entries(m.byOpponent).map(([o, s]) => `${o} ${line(s)}`).join(' | ')}`);
  }
}
