/** One server connection per env object: the JSON client and the instance pool over it. */

import { JsonClient } from '../http/json-client';
import { type RemoteConnectionOptions, retryPolicy } from '../options';
import { type InstanceBackend, InstancePool } from '../pool';

/**
 * A lazily opened connection: nothing talks to the server until the first episode resets, so building
 * the env (config checks, `--show-config`) never needs the server.
 */
export class LazyConnection<D> {
  private opened: { dialect: D; pool: InstancePool } | undefined;

  constructor(
    private readonly options: RemoteConnectionOptions,
    private readonly label: string,
    private readonly open: (client: JsonClient) => { dialect: D; backend: Omit<InstanceBackend, 'label'> },
  ) {}

  get(): { dialect: D; pool: InstancePool } {
    if (this.opened) return this.opened;
    const label = `${this.label} at ${this.options.url}`;
    const client = new JsonClient(this.options.url, retryPolicy(this.options), this.label);
    const { dialect, backend } = this.open(client);
    const pool = new InstancePool({ ...backend, label }, this.options.maxInstances, 'maxInstances', () => {
      client.close();
      this.opened = undefined;
    });
    this.opened = { dialect, pool };
    return this.opened;
  }

  /** Frees the server's instances and stops the HTTP worker (reopened on next use). */
  close(): void {
    this.opened?.pool.close();
  }
}
