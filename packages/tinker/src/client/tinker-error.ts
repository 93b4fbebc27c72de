import { MageError, type MageErrorOptions } from '@mage-rl/core';

/** Why a call to the Tinker service failed. */
export type TinkerFailure =
  /** The service answered 4xx (not 408/429): the request is wrong, retrying cannot help. */
  | 'http-status'
  /** 5xx, 429, timeouts or network errors, still failing after every retry. */
  | 'unavailable'
  /** A 2xx answer of an unexpected shape. */
  | 'bad-response'
  /** The future finished with `{ error, category }`. */
  | 'request-failed'
  /** The future was still pending when `futureTimeoutMs` ran out. */
  | 'future-timeout';

/** A call to the Tinker service failed; `context` holds the endpoint, the reason and the HTTP status. */
export class TinkerError extends MageError {
  constructor(message: string, options: MageErrorOptions & { readonly reason: TinkerFailure }) {
    const { reason, context, ...rest } = options;
    super('RUNNER_FAILURE', message, { ...rest, context: { ...context, reason } });
    this.name = 'TinkerError';
  }

  get reason(): TinkerFailure {
    return this.context.reason as TinkerFailure;
  }
}
