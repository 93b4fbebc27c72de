// Run the trained policy (no memory, K = 1) and dump every slot (seat, opponent, steps, return) to JSON.
import { writeFileSync } from 'node:fs';
const T = await import('/work/main/packages/trainer/dist/index.js');
const R = await import('/work/main/packages/recipes/dist/index.js');
const [run, episodes, out] = [process.argv[2], Number(process.argv[3] ?? 1024), process.argv[4] ?? 'slots.json'];
const config = R.resolveTrainConfig(
  { seed: 77, env: { options: { mode: 'new-deal' } }, eval: { earlyStop: false, episodes } },
  { preset: 'laptop', method: 'grpo', env: 'kuhn-poker' },
);
console.log('env options', JSON.stringify(config.env.options));
const loaded = await T.loadPolicy({ policy: run, env: 'kuhn-poker', envOptions: config.env.options, style: 'compact' });
const r = await T.evaluateWithMemory({ config, policy: loaded.policy, method: 'grpo', memory: 'none', opponents: config.eval.inDomain, episodes, attempts: 1, seed: 77, baseline: false });
const m = r.result.metrics;
const c = (s) => (s.perAttempt[0].meanReturn / 5).toFixed(3);
console.log(`overall ${c(m.overall)} | ${Object.entries(m.byOpponent).map(([o, s]) => `${o} ${c(s)} (${s.metaEpisodes})`).join(' | ')}`);
const slots = r.result.batch.slots;
console.log('slot keys', Object.keys(slots[0]), 'attempt keys', Object.keys(slots[0].attempts[0]));
const strip = (x) => JSON.parse(JSON.stringify(x, (k, v) => (k === 'rng' || k === 'opponent' && typeof v === 'object' ? undefined : v)));
writeFileSync(out, JSON.stringify({ slots: slots.map(strip), rows: r.result.batch.rows.map((row) => ({ opponentId: row.opponentId, slot: row.slot, turn: row.turn, phase: row.phase, promptText: row.promptText, responseText: row.responseText, reward: row.reward, valid: row.valid, invalid: row.invalid, anchor: row.anchor })) }));
await loaded.dispose();
