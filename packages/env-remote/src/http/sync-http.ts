/**
 * Blocking HTTP for the synchronous `EnvEpisodeV1` interface: a `BlockingWorker` does each request with
 * `node:http` while the calling thread waits.
 */

import { BlockingWorker } from './blocking-worker';

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

// The worker's script (CommonJS, after the prelude of blocking-worker.ts), so it runs from sources and from dist alike.
const HTTP_SCRIPT = `
const http = require('node:http');
const https = require('node:https');
port.on('message', (req) => {
  let finished = false;
  const finish = (reply) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    answer(reply);
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
export const WORKER_GRACE_MS = 5_000;

/** One worker thread doing blocking requests for this thread, one at a time. */
export class SyncHttp {
  private readonly worker = new BlockingWorker(HTTP_SCRIPT);

  /** Sends `request` and blocks until the reply (or the timeout). Never throws for network failures. */
  request(request: HttpRequest): HttpReply {
    const r = this.worker.call(request, request.timeoutMs + WORKER_GRACE_MS);
    if ('reply' in r) return r.reply as HttpReply;
    if (r.failed === 'closed')
      return { kind: 'error', code: 'ECLOSED', message: 'the HTTP worker was closed' };
    return {
      kind: 'error',
      code: r.failed === 'timeout' ? 'ETIMEDOUT' : 'EWORKER',
      message: 'the HTTP worker did not answer',
    };
  }

  /** Stops the worker thread. */
  close(): void {
    this.worker.close();
  }
}
