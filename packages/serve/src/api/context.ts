/** What every endpoint handler gets: the engine, the limits, and ids for its response. */

import type { ServeEngine } from '../engine/engine';
import { ApiError } from '../http/errors';
import type { ServeLimits } from './generation';

export interface ApiContext {
  readonly engine: ServeEngine;
  readonly limits: ServeLimits;
  /** A fresh response id with `prefix` (`chatcmpl`, `cmpl`). */
  nextId(prefix: string): string;
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
