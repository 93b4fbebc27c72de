/**
 * A bounded pool of server-side env instances. An episode holds its instance while an attempt runs and
 * keeps it between attempts; once the attempt is over the instance may go to another episode, which
 * resets it to its own task. So a run needs as many instances as it has attempts running at once (its
 * rollout slots), never more than `max`.
 */

import { RemoteEnvError } from './errors';
import { trackForExit } from './lifecycle';

export interface InstanceBackend {
  /** A new instance on the server; its id. */
  create(): number;
  /** Frees the instance on the server (best effort: a server without `close` keeps it). */
  close(id: number): void;
  /** For messages: `the WebShop server at http://…`. */
  readonly label: string;
}

/** Whoever holds an instance: it may be taken away while `busy` is false. */
export interface InstanceHolder {
  readonly busy: boolean;
}

export class InstancePool {
  private readonly holders = new Map<number, InstanceHolder | null>();
  private closed = false;

  constructor(
    private readonly backend: InstanceBackend,
    readonly max: number,
    /** The option that sets `max`, for messages (`maxInstances`). */
    private readonly option: string,
    private readonly onClose: () => void = () => {},
  ) {
    trackForExit(this);
  }

  /** Instances created and not closed. */
  get size(): number {
    return this.holders.size;
  }

  /**
   * An instance for `holder`: `previous` when it still holds it, else a free one, else one whose holder
   * is between attempts, else a new one; a `RemoteEnvError` when `max` instances are all in use.
   */
  acquire(holder: InstanceHolder, previous: number | undefined): number {
    if (previous !== undefined && this.holders.get(previous) === holder) return previous;
    let idle: number | undefined;
    for (const [id, owner] of this.holders) {
      if (owner === null) return this.give(id, holder);
      if (idle === undefined && !owner.busy) idle = id;
    }
    if (idle !== undefined) return this.give(idle, holder);
    if (this.holders.size >= this.max) {
      throw new RemoteEnvError(
        `All ${this.max} instances on ${this.backend.label} are in use by running attempts. Raise the env option ${this.option} (e.g. --set env.options.${this.option}=${this.max * 2}) if the server can hold more, or run fewer slots at once (rollout.groups × rollout.groupSize).`,
        { context: { reason: 'pool-exhausted', max: this.max } },
      );
    }
    this.closed = false;
    const id = this.backend.create();
    this.holders.set(id, holder);
    return id;
  }

  /** Whether `holder` still holds `id`. */
  holds(holder: InstanceHolder, id: number | undefined): boolean {
    return id !== undefined && this.holders.get(id) === holder;
  }

  /** Closes every instance on the server (errors ignored: the server may be gone) and the client. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of this.holders.keys()) {
      try {
        this.backend.close(id);
      } catch {
        // The server is gone or refuses: nothing more to free.
      }
    }
    this.holders.clear();
    this.onClose();
  }

  private give(id: number, holder: InstanceHolder): number {
    this.holders.set(id, holder);
    return id;
  }
}
