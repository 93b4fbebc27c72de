/** The error of a remote env: the server is absent, too slow, or answered something this client cannot use. */

import { MageError, type MageErrorOptions } from '@mage-rl/core';

/**
 * An env server could not be reached or answered something unexpected. The message names the server's
 * address, the request and what to do; `context.url`, `context.endpoint` and `context.reason`
 * (`unreachable`, `timeout`, `http-status`, `bad-response`, `server-error`, `pool-exhausted`) say more.
 */
export class RemoteEnvError extends MageError {
  constructor(message: string, options: MageErrorOptions = {}) {
    super('ENV_FAILURE', message, options);
    this.name = 'RemoteEnvError';
  }
}
