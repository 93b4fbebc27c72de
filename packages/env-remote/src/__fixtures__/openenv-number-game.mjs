/**
 * Test fixture: an OpenEnv server this repository did not write the env of — a number-guessing game in
 * `textarena_env`'s convention, written from OpenEnv's protocol alone (no mage code): `GET /health`,
 * `/metadata`, `/schema` and WebSocket sessions on `/ws`. The secret of seed `s` is 1 + (37·s + 11) mod
 * 100; each guess is answered "too low" / "too high" with the range left; a right guess ends the episode
 * with reward 1, the tenth wrong one with reward 0. Prints `listening <url>`.
 *
 * Flags: `--action-field <name>` (the action's text field; default `message`), `--max-sessions <n>`,
 * `--idle-ms <n>` (a session silent this long is closed).
 */

import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';

const flag = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const actionField = flag('action-field', 'message');
const maxSessions = Number(flag('max-sessions', '8'));
const idleMs = Number(flag('idle-ms', '600000'));
const MAX_GUESSES = 10;

const schemas = {
  action: {
    title: 'GuessAction',
    type: 'object',
    properties: { [actionField]: { type: 'string' }, metadata: { type: 'object' } },
    required: [actionField],
  },
  observation: {
    title: 'GuessObservation',
    type: 'object',
    properties: {
      prompt: { type: 'string' },
      messages: { type: 'array' },
      current_player_id: { type: 'integer' },
      legal_players: { type: 'array' },
      info: { type: 'object' },
      done: { type: 'boolean' },
      reward: { type: 'number' },
    },
    required: ['prompt'],
  },
  state: { type: 'object', properties: { episode_id: { type: 'string' }, step_count: { type: 'integer' } } },
};

const PROMPT = 'I picked a whole number between 1 and 100. Guess it: answer with the number alone.';

function observation(game, feedback, reward, done) {
  return {
    observation: {
      prompt: PROMPT,
      messages: [
        { sender_id: -1, content: PROMPT, category: 'PROMPT' },
        ...(feedback ? [{ sender_id: -1, content: feedback, category: 'GAME' }] : []),
      ],
      current_player_id: 0,
      legal_players: [0],
      info: { guesses: game.guesses, low: game.low, high: game.high },
    },
    reward,
    done,
  };
}

const error = (code, message) => JSON.stringify({ type: 'error', data: { message, code } });
let sessions = 0;
let episodes = 0;

const server = createServer((req, res) => {
  const routes = {
    '/health': { status: 'healthy' },
    '/metadata': { name: 'NumberGuess', description: 'guess a number from low/high hints', version: '1.0.0' },
    '/schema': schemas,
  };
  const body = req.method === 'GET' ? routes[req.url] : undefined;
  res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body ?? { detail: 'Not Found' }));
});

const wss = new WebSocketServer({ server, path: '/ws' });
wss.on('connection', (ws) => {
  if (sessions >= maxSessions) {
    ws.send(error('CAPACITY_REACHED', `Server at capacity (${sessions}/${maxSessions})`));
    ws.close();
    return;
  }
  sessions++;
  ws.on('close', () => sessions--);
  let game = null;
  let idle;
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => ws.close(), idleMs);
  };
  touch();
  ws.on('message', (raw) => {
    touch();
    let msg;
    try {
      msg = JSON.parse(String(raw));
    } catch (e) {
      ws.send(error('INVALID_JSON', `Invalid JSON: ${e.message}`));
      return;
    }
    if (msg.type === 'reset') {
      const seed = msg.data?.seed ?? 0;
      game = {
        secret: 1 + ((37 * seed + 11) % 100),
        low: 1,
        high: 100,
        guesses: 0,
        done: false,
        id: ++episodes,
      };
      ws.send(JSON.stringify({ type: 'observation', data: observation(game, null, 0, false) }));
    } else if (msg.type === 'step') {
      const text = msg.data?.[actionField];
      if (typeof text !== 'string') {
        ws.send(
          JSON.stringify({ type: 'error', data: { message: 'Invalid message', code: 'VALIDATION_ERROR' } }),
        );
        return;
      }
      if (!game || game.done) {
        ws.send(error('EXECUTION_ERROR', 'reset first'));
        return;
      }
      game.guesses++;
      const guess = Number.parseInt(text, 10);
      let feedback;
      if (!Number.isFinite(guess))
        feedback = `'${text}' is not a number. It is between ${game.low} and ${game.high}.`;
      else if (guess === game.secret) game.done = true;
      else if (guess < game.secret) {
        game.low = Math.max(game.low, guess + 1);
        feedback = `${guess} is too low. It is between ${game.low} and ${game.high}.`;
      } else {
        game.high = Math.min(game.high, guess - 1);
        feedback = `${guess} is too high. It is between ${game.low} and ${game.high}.`;
      }
      if (game.done) feedback = `${guess} is right!`;
      else if (game.guesses >= MAX_GUESSES) {
        game.done = true;
        feedback += ' No guesses left.';
      }
      const won = guess === game.secret;
      ws.send(
        JSON.stringify({ type: 'observation', data: observation(game, feedback, won ? 1 : 0, game.done) }),
      );
    } else if (msg.type === 'state') {
      const data = { episode_id: game ? `guess-${game.id}` : null, step_count: game?.guesses ?? 0 };
      ws.send(JSON.stringify({ type: 'state', data }));
    } else if (msg.type === 'close') {
      ws.close();
    } else {
      ws.send(error('UNKNOWN_TYPE', `Unknown message type: ${msg.type}`));
    }
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
