/** What the retrieval memories (`memento`, `a-mem`) share: the attempt context they store and their `k`. */

import { ConfigError, type Seat } from '@mage-rl/spec';
import type { LayoutOptions } from '../memory/context-memory';

/** The attempt a stored note or case comes from: its task and how it ended. */
export interface StoredAttemptContext {
  readonly envId: string;
  readonly opponentId: string | null;
  readonly seat: Seat;
  readonly initialText: string;
  readonly label: string;
  readonly success: boolean;
}

export interface RetrievalOptions extends LayoutOptions {
  /** Notes or cases retrieved by similarity per attempt. Default 3. */
  readonly k?: number;
}

/** `options.k`, default 3; throws a `ConfigError` unless it is a positive integer. */
export function retrievalK(options: RetrievalOptions): number {
  const k = options.k ?? 3;
  if (!Number.isInteger(k) || k < 1)
    throw new ConfigError(`k must be a positive integer, got ${k}.`, { path: 'k' });
  return k;
}
