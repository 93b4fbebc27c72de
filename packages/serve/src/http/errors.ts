/**
 * OpenAI-shaped errors: `{ "error": { "message", "type", "param", "code" } }` with the HTTP status
 * OpenAI (and vLLM) use: 400 invalid request, 401 bad key, 404 unknown model or route, 405 wrong
 * method, 413 body too large, 429 over a limit, 500 a bug; the shared request checks add 403 (cross-site
 * origin or adapter outside `--adapter-dir`), 415 (POST that is not JSON), 421 (forged Host) and 503
 * (shutting down).
 */

import { MageError } from '@mage-rl/core';
import { HttpRefusal } from '@mage-rl/core/http';
import { EngineBusyError } from '../engine/engine';

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error';

export class ApiError extends Error {
  readonly status: number;
  readonly type: ApiErrorType;
  readonly param: string | null;
  readonly code: string | null;

  constructor(
    status: number,
    message: string,
    o: { readonly type?: ApiErrorType; readonly param?: string | null; readonly code?: string | null } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.type =
      o.type ??
      (status === 401
        ? 'authentication_error'
        : status === 404
          ? 'not_found_error'
          : status === 429
            ? 'rate_limit_error'
            : status >= 500
              ? 'server_error'
              : 'invalid_request_error');
    this.param = o.param ?? null;
    this.code = o.code ?? null;
  }
}

export const badRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new ApiError(400, message, { param, code });

export interface ErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: ApiErrorType;
    readonly param: string | null;
    readonly code: string | null;
  };
}

/** Maps anything thrown while answering a request to an `ApiError`. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof HttpRefusal) return new ApiError(e.status, e.message, { code: e.code });
  if (e instanceof EngineBusyError) return new ApiError(429, e.message, { code: 'too_many_requests' });
  if (MageError.isInstance(e)) {
    const err = e as MageError;
    if (
      err.code === 'INVALID_ARGUMENT' ||
      err.code === 'INVALID_CONFIG' ||
      err.code === 'MODEL_FORMAT' ||
      err.code === 'CHECKPOINT_INVALID'
    )
      return new ApiError(400, err.message);
    if (err.code === 'UNKNOWN_ID') return new ApiError(404, err.message, { code: 'model_not_found' });
  }
  return new ApiError(500, `Internal server error: ${e instanceof Error ? e.message : String(e)}`);
}

export const errorBody = (e: ApiError): ErrorBody => ({
  error: { message: e.message, type: e.type, param: e.param, code: e.code },
});
