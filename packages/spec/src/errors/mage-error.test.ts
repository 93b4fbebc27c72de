import { describe, expect, it } from 'vitest';
import { AbortedError, ConfigError, MageError, throwIfAborted, UnknownIdError } from './mage-error';

describe('MageError', () => {
  it('carries code, context and cause, and serialises', () => {
    const cause = new Error('disk full');
    const e = new ConfigError('train.lr must be positive', { path: 'train.lr', cause });
    expect(e.code).toBe('INVALID_CONFIG');
    expect(e.context).toEqual({ path: 'train.lr' });
    expect(e.cause).toBe(cause);
    expect(JSON.parse(JSON.stringify(e))).toEqual({
      name: 'ConfigError',
      code: 'INVALID_CONFIG',
      message: 'train.lr must be positive',
      context: { path: 'train.lr' },
      cause: 'disk full',
    });
  });

  it('isInstance recognises errors by brand, not by class identity', () => {
    expect(MageError.isInstance(new AbortedError())).toBe(true);
    expect(MageError.isInstance(new Error('x'))).toBe(false);
    expect(MageError.isInstance(null)).toBe(false);
    // A duplicate install has a different class but the same global symbol brand.
    const foreign = Object.assign(new Error('x'), { [Symbol.for('mage-rl.error')]: true });
    expect(MageError.isInstance(foreign)).toBe(true);
  });

  it('UnknownIdError lists the known ids', () => {
    const e = new UnknownIdError('opponent', 'mcts-7', ['mcts-100', 'random']);
    expect(e.message).toContain('mcts-100, random');
    expect(e.known).toEqual(['mcts-100', 'random']);
  });

  it('throwIfAborted throws only for aborted signals', () => {
    const c = new AbortController();
    expect(() => throwIfAborted(c.signal)).not.toThrow();
    c.abort('stop');
    expect(() => throwIfAborted(c.signal)).toThrow(AbortedError);
  });
});
