/** What every endpoint handler gets: the engine, the limits, and ids for its response. */

import type { ServeEngine } from '../engine/engine';
import { ApiError } from '../http/errors';
import type { ServeLimits } from './generation';

/** What the server shares between requests. */
export interface ServerContext {
  readonly engine: ServeEngine;
  readonly limits: ServeLimits;
  /** A fresh response id with `prefix` (`chatcmpl`, `cmpl`). */
  nextId(prefix: string): string;
  /** Where `load_lora_adapter` may read adapters (unset: nowhere). */
  readonly adapterDir?: string;
  readonly maxAdapterBytes: number;
}

/** One request's context: the server's, its client, and a signal aborted when the client goes. */
export interface ApiContext extends ServerContext {
  /** Aborted when the client disconnects or the server shuts down: the request's rows are cancelled. */
  readonly signal: AbortSignal;
  /** The client's address, for its share of the row queue. */
  readonly client: string;
}

/** The adapter a `model` field names: null for the base model; 404 for anything else. */
export function adapterOf(ctx: ApiContext, model: string): string | null {
  if (model === ctx.engine.model.id) return null;
  if (ctx.engine.adapterNames().includes(model)) return model;
  throw new ApiError(404, `The model '${model}' does not exist.`, {
    param: 'model',
    code: 'model_not_found',
  });
}

export const unixTime = (): number => Math.floor(Date.now() / 1000);

/**
 * The chunk maker of one streamed response: every chunk carries the response's id (`prefix`), object
 * type, creation time and model, then its choices and any extra fields (usage).
 */
export function streamChunks(ctx: ApiContext, prefix: string, object: string, model: string) {
  const id = ctx.nextId(prefix);
  const created = unixTime();
  return (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object,
    created,
    model,
    choices,
    ...extra,
  });
}
