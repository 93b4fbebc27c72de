/**
 * Blocking WebSocket sessions for the synchronous `EnvEpisodeV1` interface: a `BlockingWorker` holds the
 * sockets (the `ws` package; Node 20 has no WebSocket of its own) and the calling thread waits for each
 * answer. A session is a request/answer exchange: send one text message, wait for the next one the
 * server sends. Messages the server sends unasked (an error before closing, say) wait in an inbox and
 * answer the next exchange.
 */

import { createRequire } from 'node:module';
import { BlockingWorker } from './blocking-worker';
import { WORKER_GRACE_MS } from './sync-http';

export type WsReply =
  | { readonly kind: 'open'; readonly id: number }
  | { readonly kind: 'message'; readonly text: string }
  | { readonly kind: 'closed' }
  | {
      readonly kind: 'error';
      /** `ECONNREFUSED`, `ETIMEDOUT`, `ECLOSED` (the server closed the session), `EHTTP` (no upgrade) … */
      readonly code: string;
      readonly message: string;
    };

// The worker's script (CommonJS, after the prelude of blocking-worker.ts); `ws` is required by the path
// this module resolved, so the worker finds it from sources and from dist alike.
const WS_SCRIPT = `
const WebSocket = require(workerData.wsPath);
const sessions = new Map();
let nextId = 1;
const error = (code, message) => ({ kind: 'error', code: String(code || 'EWS'), message: String(message) });

function open(req) {
  let settled = false;
  const s = { ws: null, inbox: [], waiter: null, ended: null };
  const settle = (reply) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    answer(reply);
  };
  const end = (reason) => {
    if (!s.ended) s.ended = reason;
    settle(reason);
    if (s.waiter) s.waiter(reason);
  };
  const timer = setTimeout(() => {
    end(error('ETIMEDOUT', 'no WebSocket handshake within ' + req.timeoutMs + ' ms'));
    if (s.ws) s.ws.terminate();
  }, req.timeoutMs);
  try {
    s.ws = new WebSocket(req.url, { handshakeTimeout: req.timeoutMs, maxPayload: req.maxBytes, perMessageDeflate: false });
  } catch (e) {
    return end(error('EINVAL', e && e.message ? e.message : e));
  }
  s.ws.on('open', () => {
    const id = nextId++;
    sessions.set(id, s);
    settle({ kind: 'open', id });
  });
  s.ws.on('unexpected-response', (_request, response) => {
    end(error('EHTTP', 'HTTP ' + response.statusCode + ' instead of a WebSocket upgrade'));
    response.resume();
    s.ws.terminate();
  });
  s.ws.on('message', (data) => {
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat([].concat(data)).toString('utf8');
    if (s.waiter) s.waiter({ kind: 'message', text });
    else s.inbox.push(text);
  });
  s.ws.on('error', (e) => end(error(e.code, e.message)));
  s.ws.on('close', (code, reason) => {
    const why = reason && reason.length > 0 ? ': ' + reason.toString('utf8') : '';
    end(error('ECLOSED', 'the server closed the WebSocket (code ' + code + why + ')'));
  });
}

function exchange(req) {
  const s = sessions.get(req.id);
  if (!s) return answer(error('ENOSESSION', 'no open WebSocket session ' + req.id));
  if (s.inbox.length > 0) return answer({ kind: 'message', text: s.inbox.shift() });
  if (s.ended) return answer(s.ended);
  let timer;
  s.waiter = (reply) => {
    s.waiter = null;
    clearTimeout(timer);
    answer(reply);
  };
  timer = setTimeout(() => s.waiter && s.waiter(error('ETIMEDOUT', 'no answer within ' + req.timeoutMs + ' ms')), req.timeoutMs);
  s.ws.send(req.text, (e) => {
    if (e && s.waiter) s.waiter(error(e.code || 'EPIPE', e.message));
  });
}

function close(req) {
  const s = sessions.get(req.id);
  sessions.delete(req.id);
  if (s && !s.ended && s.ws.readyState === WebSocket.OPEN) {
    if (req.text !== undefined) s.ws.send(req.text);
    s.ws.close(1000);
    setTimeout(() => s.ws.terminate(), 2000).unref();
  }
  answer({ kind: 'closed' });
}

port.on('message', (req) => {
  try {
    if (req.op === 'open') open(req);
    else if (req.op === 'exchange') exchange(req);
    else close(req);
  } catch (e) {
    answer(error('EWORKER', e && e.message ? e.message : e));
  }
});
`;

/** WebSocket sessions held by a worker thread, used blocking from this one. */
export class SyncWebSocket {
  private readonly worker = new BlockingWorker(WS_SCRIPT, {
    wsPath: createRequire(import.meta.url).resolve('ws'),
  });

  constructor(
    /** Longest message accepted from the server. */
    private readonly maxMessageBytes: number,
  ) {}

  /** Opens a session at `url` (`ws://…`); its id, or why not. */
  open(url: string, timeoutMs: number): WsReply {
    return this.call({ op: 'open', url, timeoutMs, maxBytes: this.maxMessageBytes }, timeoutMs);
  }

  /** Sends `text` on session `id` and waits for the server's next message. */
  exchange(id: number, text: string, timeoutMs: number): WsReply {
    return this.call({ op: 'exchange', id, text, timeoutMs }, timeoutMs);
  }

  /** Sends `farewell` (when given) and closes session `id`; never fails. */
  close(id: number, farewell?: string): void {
    this.call({ op: 'close', id, ...(farewell === undefined ? {} : { text: farewell }) }, 1000);
  }

  /** Stops the worker thread and with it every session. */
  stop(): void {
    this.worker.close();
  }

  private call(message: Record<string, unknown>, timeoutMs: number): WsReply {
    const r = this.worker.call(message, timeoutMs + WORKER_GRACE_MS);
    if ('reply' in r) return r.reply as WsReply;
    if (r.failed === 'closed')
      return { kind: 'error', code: 'ECLOSED', message: 'the WebSocket worker was closed' };
    return {
      kind: 'error',
      code: r.failed === 'timeout' ? 'ETIMEDOUT' : 'EWORKER',
      message: 'the WebSocket worker did not answer',
    };
  }
}
