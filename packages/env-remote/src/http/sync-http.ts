/**
 * Blocking HTTP for the synchronous `EnvEpisodeV1` interface. A worker thread does the request with
 * `node:http`; the calling thread waits on a shared flag (`Atomics.wait`) and reads the reply from a
 * message port. The worker is unref'd: it never keeps the process alive. See architecture/envs.md
 * ("Remote envs") for why the env interface stays synchronous.
 */

import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  /** A JSON body (POST). */
  readonly body?: string;
  /** Whole-request limit: connect, send, and read the full response. */
  readonly timeoutMs: number;
  /** Longest response body accepted. */
  readonly maxResponseBytes: number;
}

export type HttpReply =
  | { readonly kind: 'response'; readonly status: number; readonly body: string }
  | {
      readonly kind: 'error';
      /** `ECONNREFUSED`, `ECONNRESET`, `ETIMEDOUT`, `ETOOLARGE`, … */
      readonly code: string;
      readonly message: string;
    };

// The worker's source, run with `eval: true` (a CommonJS script), so it works from sources and from dist alike.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
port.on('message', (req) => {
  let finished = false;
  const finish = (reply) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    port.postMessage(reply);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  };
  const fail = (code, message) => finish({ kind: 'error', code: String(code || 'EUNKNOWN'), message: String(message) });
  let request;
  const timer = setTimeout(() => {
    fail('ETIMEDOUT', 'no complete answer within ' + req.timeoutMs + ' ms');
    if (request) request.destroy();
  }, req.timeoutMs);
  try {
    const mod = req.url.startsWith('https:') ? https : http;
    const headers = { accept: 'application/json' };
    if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(req.body);
    }
    request = mod.request(req.url, { method: req.method, headers, agent: false }, (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (chunk) => {
        size += chunk.length;
        if (size > req.maxResponseBytes) {
          fail('ETOOLARGE', 'response longer than ' + req.maxResponseBytes + ' bytes');
          res.destroy();
        } else chunks.push(chunk);
      });
      res.on('end', () => finish({ kind: 'response', status: res.statusCode || 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (e) => fail(e.code, e.message));
    });
    request.on('error', (e) => fail(e.code, e.message));
    request.end(req.body);
  } catch (e) {
    fail('EINVAL', e && e.message ? e.message : e);
  }
});
`;

/** Margin over a request's own timeout before the caller gives up on the worker itself. */
const WORKER_GRACE_MS = 5_000;

/** One worker thread doing blocking requests for this thread, one at a time. */
export class SyncHttp {
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private closed = false;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { flag: this.flag.buffer, port: port2 },
      transferList: [port2],
    });
    this.worker.unref();
    this.port.unref();
  }

  /** Sends `request` and blocks until the reply (or the timeout). Never throws for network failures. */
  request(request: HttpRequest): HttpReply {
    if (this.closed) return { kind: 'error', code: 'ECLOSED', message: 'the HTTP worker was closed' };
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(request);
    const waited = Atomics.wait(this.flag, 0, 0, request.timeoutMs + WORKER_GRACE_MS);
    const message = receiveMessageOnPort(this.port);
    if (message === undefined) {
      return {
        kind: 'error',
        code: waited === 'timed-out' ? 'ETIMEDOUT' : 'EWORKER',
        message: 'the HTTP worker did not answer',
      };
    }
    return message.message as HttpReply;
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
