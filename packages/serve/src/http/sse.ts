/** Server-sent events as OpenAI streams them: `data: <json>\n\n` chunks, then `data: [DONE]`. */

import type { ServerResponse } from 'node:http';

export interface EventStream {
  send(value: unknown): void;
  /** Ends the stream with `data: [DONE]`. */
  done(): void;
  /** True once the client has gone. */
  readonly closed: boolean;
}

export function openEventStream(res: ServerResponse): EventStream {
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  return {
    send(value) {
      if (!closed) res.write(`data: ${JSON.stringify(value)}\n\n`);
    },
    done() {
      if (!closed) res.end('data: [DONE]\n\n');
    },
    get closed() {
      return closed;
    },
  };
}
