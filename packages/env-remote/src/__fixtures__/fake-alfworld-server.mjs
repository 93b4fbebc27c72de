// Test fixture: a small stateful server in AgentGym's ALFWorld dialect. Game g: a room with a cabinet,
// a countertop and a fridge; the mug is on the countertop for even g and in the fridge for odd g; the
// task is won by putting it in the cabinet. Errors come back as {"error": …} with HTTP 200, as
// AgentGym's server does (unknown id, step after the end, bad world_type). `GET /__stats` (not part of
// the dialect) counts creates and resets per game. Prints `listening <url>` once ready.
import { createServer } from 'node:http';

const envs = new Map();
const stats = { creates: 0, resets: {}, steps: 0 };
let nextId = 0;

const where = (game) => (game % 2 === 0 ? 'countertop 1' : 'fridge 1');
function admissible(s) {
  const base = ['go to cabinet 1', 'go to countertop 1', 'go to fridge 1', 'inventory', 'look', 'help'];
  const here = [];
  if (!s.holding && s.at === where(s.game)) here.push(`take mug 1 from ${s.at}`);
  if (s.holding && s.at === 'cabinet 1') here.push('put mug 1 in/on cabinet 1');
  return [...base.filter((c) => c !== `go to ${s.at}`), ...here];
}
function act(s, action) {
  if (action.startsWith('go to ')) {
    s.at = action.slice(6);
    const sees = !s.holding && s.at === where(s.game) ? 'a mug 1, and a apple 1' : 'nothing';
    return `You arrive at ${s.at}. On the ${s.at}, you see ${sees}.`;
  }
  if (action.startsWith('take mug 1') && admissible(s).includes(action)) {
    s.holding = true;
    return `You pick up the mug 1 from the ${s.at}.`;
  }
  if (action === 'put mug 1 in/on cabinet 1' && admissible(s).includes(action)) {
    s.won = true;
    return 'You put the mug 1 in/on the cabinet 1.';
  }
  if (action === 'inventory')
    return s.holding ? 'You are carrying: a mug 1.' : 'You are not carrying anything.';
  return 'Nothing happens.';
}

const routes = {
  'POST /create': () => {
    stats.creates++;
    const id = nextId++;
    envs.set(id, null);
    return { id };
  },
  'POST /reset': (b) => {
    if (!['Text', 'Embody', 'Hybrid'].includes(b.world_type))
      return { error: 'world_type must be one of "Text", "Embody" and "Hybrid"' };
    if (!envs.has(b.id)) return { error: `The id ${b.id} is not valid.` };
    stats.resets[b.game] = (stats.resets[b.game] ?? 0) + 1;
    const s = { game: b.game, at: 'middle', holding: false, won: false, done: false };
    envs.set(b.id, s);
    const observation = `You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, and a fridge 1.\nYour task is to: put a mug in cabinet.`;
    return {
      id: b.id,
      observation,
      available_actions: admissible(s),
      task_type: `pick_and_place_simple-Mug-None-Cabinet-${b.game}/trial_T0`,
    };
  },
  'POST /step': (b) => {
    const s = envs.get(b.id);
    if (!s) return { error: `The id ${b.id} is not valid.` };
    if (s.done) return { error: `The task with environment ${b.id} has finished.` };
    stats.steps++;
    const observation = act(s, b.action);
    s.done = s.won;
    return { observation, reward: s.won ? 1.0 : 0.0, available_actions: admissible(s), done: s.done };
  },
  'GET /__stats': () => stats,
  'GET /': () => 'This is environment AlfWorld.',
};

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const path = req.url.split('?')[0];
    const route = routes[`${req.method} ${path}`];
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Not Found' }));
      return;
    }
    let body = {};
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    } catch {
      res.writeHead(422, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'bad json' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(route(body)));
  });
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`listening http://127.0.0.1:${server.address().port}\n`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
