/** One server connection per env object: the JSON client and the instance pool over it. */

import { JsonClient } from '../http/json-client';
import { type RemoteConnectionOptions, retryPolicy } from '../options';
import { type InstanceBackend, InstancePool } from '../pool';

/** A dialect over a server's client, the backend of its instances, and what stops its own resources. */
export interface OpenedDialect<D> {
  readonly dialect: D;
  readonly backend: Omit<InstanceBackend, 'label'>;
  readonly dispose?: () => void;
}

/**
 * A lazily opened connection: nothing talks to the server until the first episode resets, so building
 * the env (config checks, `--show-config`) never needs the server.
 */
export class LazyConnection<D> {
  private opened: { dialect: D; pool: InstancePool } | undefined;

  constructor(
    private readonly options: RemoteConnectionOptions,
    private readonly label: string,
    private readonly open: (client: JsonClient) => OpenedDialect<D>,
  ) {}

  get(): { dialect: D; pool: InstancePool } {
    if (this.opened) return this.opened;
    const label = `${this.label} at ${this.options.url}`;
    const client = new JsonClient(this.options.url, retryPolicy(this.options), this.label);
    let opened: OpenedDialect<D>;
    try {
      opened = this.open(client);
    } catch (error) {
      client.close();
      throw error;
    }
    const { dialect, backend, dispose } = opened;
    const pool = new InstancePool({ ...backend, label }, this.options.maxInstances, 'maxInstances', () => {
      dispose?.();
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
