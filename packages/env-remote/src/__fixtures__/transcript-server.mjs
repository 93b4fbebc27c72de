// Test fixture: an env server that replays a recorded transcript. Each request must equal the next
// recorded one (method, path with query, JSON body); the server answers with the recorded status and body.
// A request that differs gets HTTP 599 with what was expected. `GET /__remaining` (not part of any
// dialect) says how many exchanges are left. Prints `listening <url>` once ready.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const transcript = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let next = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (req.url === '/__remaining') {
      res.end(JSON.stringify({ remaining: transcript.exchanges.length - next }));
      return;
    }
    const expected = transcript.exchanges[next];
    const body = text === '' ? undefined : JSON.parse(text);
    const same =
      expected &&
      expected.request.method === req.method &&
      expected.request.path === req.url &&
      JSON.stringify(expected.request.body) === JSON.stringify(body);
    if (!same) {
      res.writeHead(599, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          detail: `transcript step ${next}: expected ${JSON.stringify(expected?.request)}, got ${req.method} ${req.url} ${text}`,
        }),
      );
      return;
    }
    next++;
    const r = expected.response;
    res.writeHead(r.status ?? 200, { 'content-type': 'application/json' });
    res.end(r.raw ?? JSON.stringify(r.body));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
