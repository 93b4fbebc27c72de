import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  checkOpponentCost,
  closeServer,
  createHardenedServer,
  exposureWarning,
  HttpRefusal,
  listenOn,
  readJsonBody,
  requestGuard,
} from './index';

const guard = requestGuard({ host: '127.0.0.1', allowOrigins: ['http://localhost:3000'] });
const refusal = (headers: Record<string, string>, method = 'GET'): number | null => {
  try {
    guard.check({ headers, method } as never);
    return null;
  } catch (e) {
    return (e as HttpRefusal).status;
  }
};

describe('requestGuard: what a web page may do', () => {
  it('allows loopback Host names and same-origin or listed Origins; refuses forged Host, foreign Origin, non-JSON POST', () => {
    expect(refusal({ host: '127.0.0.1:8000' })).toBeNull();
    expect(refusal({ host: 'localhost:8000' })).toBeNull();
    expect(refusal({ host: '[::1]:8000' })).toBeNull();
    expect(refusal({ host: 'evil.example:8000' })).toBe(421);
    expect(refusal({ host: '127.0.0.1:8000', origin: 'http://127.0.0.1:8000' })).toBeNull();
    expect(refusal({ host: '127.0.0.1:8000', origin: 'http://localhost:3000' })).toBeNull();
    expect(refusal({ host: '127.0.0.1:8000', origin: 'https://evil.example' })).toBe(403);
    expect(refusal({ host: '127.0.0.1:8000', origin: 'null' })).toBe(403);
    expect(refusal({ host: '127.0.0.1:8000', 'content-type': 'text/plain' }, 'POST')).toBe(415);
    expect(refusal({ host: '127.0.0.1:8000' }, 'POST')).toBe(415);
    expect(
      refusal({ host: '127.0.0.1:8000', 'content-type': 'application/json; charset=utf-8' }, 'POST'),
    ).toBeNull();
  });

  it('caps the cost number in a client-chosen opponent id', () => {
    expect(() => checkOpponentCost('mcts-200')).not.toThrow();
    expect(() => checkOpponentCost('mcts-9999999')).toThrow(HttpRefusal);
    expect(() => checkOpponentCost('mcts-50', 10)).toThrow(/up to 10/);
  });

  it('warns on a non-loopback bind, naming the risk and --api-key', () => {
    expect(exposureWarning('mage serve', '127.0.0.1', false)).toBeNull();
    expect(exposureWarning('mage serve', 'localhost', false)).toBeNull();
    expect(exposureWarning('mage serve', '0.0.0.0', false)).toMatch(/other machines.*--api-key/);
  });
});

function rawRequest(port: number, text: string): Promise<{ socket: Socket; answer: Promise<string> }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text);
      const answer = new Promise<string>((r) => {
        let got = '';
        socket.on('data', (d) => {
          got += String(d);
        });
        socket.on('close', () => r(got));
        socket.on('error', () => r(got));
      });
      resolve({ socket, answer });
    });
  });
}

describe('createHardenedServer: slow and idle clients', () => {
  it('answers 408 to a body that arrives too slowly, and listening on a taken port fails at once', async () => {
    const server = createHardenedServer(
      { host: '127.0.0.1', headersTimeoutMs: 200, requestTimeoutMs: 300 },
      (req, res) => {
        readJsonBody(req, 1000).then(
          () => res.end('{}'),
          () => res.end(),
        );
      },
    );
    const port = await listenOn(server, '127.0.0.1', 0);
    const slow = await rawRequest(
      port,
      'POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{',
    );
    expect(await slow.answer).toMatch(/^HTTP\/1\.1 408/);
    await expect(
      listenOn(
        createHardenedServer({ host: '127.0.0.1' }, () => {}),
        '127.0.0.1',
        port,
      ),
    ).rejects.toThrow(/EADDRINUSE/);
    await closeServer(server);
  });

  it('at the connection cap closes idle sockets so a new client gets in', async () => {
    const server = createHardenedServer({ host: '127.0.0.1', maxConnections: 4 }, (_req, res) =>
      res.end('ok'),
    );
    const port = await listenOn(server, '127.0.0.1', 0);
    const idle = await Promise.all(Array.from({ length: 4 }, () => rawRequest(port, '')));
    const status = await new Promise<number>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(200);
    for (const s of idle) s.socket.destroy();
    await closeServer(server);
  });

  it('closeServer ends a request that is still being received, within its grace', async () => {
    const server = createHardenedServer({ host: '127.0.0.1' }, () => {});
    const port = await listenOn(server, '127.0.0.1', 0);
    const slow = await rawRequest(port, 'POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n\r\n{');
    const started = Date.now();
    await closeServer(server, 200);
    await slow.answer;
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
