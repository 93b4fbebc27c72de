import { describe, expect, it } from 'vitest';
import { RemoteEnvError } from './errors';
import { InstancePool } from './pool';

function pool(max: number) {
  const created: number[] = [];
  const closed: number[] = [];
  let next = 10;
  const p = new InstancePool(
    {
      label: 'the test server',
      create: () => {
        created.push(next);
        return next++;
      },
      close: (id) => closed.push(id),
    },
    max,
    'maxInstances',
  );
  return { p, created, closed };
}

describe('InstancePool', () => {
  it('keeps an episode on its instance across attempts, hands idle ones on, and stops at the bound', () => {
    const { p, created, closed } = pool(2);
    const a = { busy: true };
    const b = { busy: true };
    const c = { busy: true };
    const ia = p.acquire(a, undefined);
    const ib = p.acquire(b, undefined);
    expect([ia, ib]).toEqual([10, 11]);
    expect(p.acquire(a, ia)).toBe(ia); // next attempt of a: same instance
    expect(() => p.acquire(c, undefined)).toThrow(RemoteEnvError);
    expect(() => p.acquire(c, undefined)).toThrow(/All 2 instances .* env option maxInstances/);
    a.busy = false; // a's attempt is over: c may take its instance
    expect(p.acquire(c, undefined)).toBe(ia);
    expect(p.holds(a, ia)).toBe(false);
    expect(p.holds(c, ia)).toBe(true);
    c.busy = true;
    expect(() => p.acquire(a, ia)).toThrow(RemoteEnvError); // a lost it and nothing is idle
    expect(created).toEqual([10, 11]);
    p.close();
    expect(closed.sort()).toEqual([10, 11]);
    expect(p.size).toBe(0);
  });

  it('closing ignores a server that is gone', () => {
    const p = new InstancePool(
      {
        label: 'x',
        create: () => 1,
        close: () => {
          throw new Error('ECONNREFUSED');
        },
      },
      1,
      'maxInstances',
    );
    p.acquire({ busy: true }, undefined);
    expect(() => p.close()).not.toThrow();
  });
});
