/**
 * The blocking half of the remote envs' I/O: a worker thread runs a CommonJS script that answers each
 * message on a port; the calling thread posts a message and waits on a shared flag (`Atomics.wait`)
 * until the script has posted its answer and raised the flag. The worker is unref'd: it never keeps the
 * process alive. See architecture/envs.md ("Remote envs") for why the env interface stays synchronous.
 */

import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

/**
 * What every worker script starts with: `flag` and `port` from the worker data, and `answer(reply)`,
 * which posts the reply and wakes the caller. A script answers every message exactly once.
 */
export const WORKER_PRELUDE = `
const { workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
const answer = (reply) => {
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
`;

export type WorkerAnswer =
  | { readonly reply: unknown }
  | { readonly failed: 'closed' | 'timeout' | 'no-answer' };

/** One worker thread answering this thread's messages, one at a time. */
export class BlockingWorker {
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private closed = false;

  /** `script` runs after `WORKER_PRELUDE`; `data` is added to its `workerData`. */
  constructor(script: string, data: Record<string, unknown> = {}) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_PRELUDE + script, {
      eval: true,
      workerData: { ...data, flag: this.flag.buffer, port: port2 },
      transferList: [port2],
    });
    this.worker.unref();
    this.port.unref();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Posts `message` and blocks until the script answers, or says why there is no answer. */
  call(message: unknown, waitMs: number): WorkerAnswer {
    if (this.closed) return { failed: 'closed' };
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(message);
    const waited = Atomics.wait(this.flag, 0, 0, waitMs);
    const answer = receiveMessageOnPort(this.port);
    if (answer === undefined) return { failed: waited === 'timed-out' ? 'timeout' : 'no-answer' };
    return { reply: answer.message };
  }

  /** Stops the worker thread. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.close();
    void this.worker.terminate();
  }
}

/** Blocks the calling thread for `ms` milliseconds (backoff between retries). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
