import { describe, expect, it } from 'vitest';
import { soakServers } from '../../bench/src/soak/server-soak';

// The small version of `pnpm --filter @mage-rl/bench soak` (60 s, 200 clients per server).
describe('server soak: serve, env-serve and dashboard under slow, abandoned and forged clients (slow)', () => {
  it('each answers a normal request within 1 s afterwards, grows by < 50 MB and exits within 5 s of SIGTERM', async () => {
    const results = await soakServers({ seconds: 3, warmupSeconds: 3, clients: 40 });
    expect(results.map((r) => r.server)).toEqual(['serve', 'env-serve', 'dashboard']);
    for (const r of results) {
      expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
      expect(Object.keys(r.statuses).filter((s) => Number(s) >= 500)).toEqual([]);
      expect(r.statuses['403'] ?? 0).toBeGreaterThan(0);
      expect(r.statuses['421'] ?? 0).toBeGreaterThan(0);
    }
  }, 120_000);
});
