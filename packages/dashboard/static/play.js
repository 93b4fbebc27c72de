// Play: a person plays a game (Tic-Tac-Toe, Kuhn Poker) against an opponent over several attempts of the
// same task; the server checks every move and answers with the opponent's.
import { api, boardElement, cardElement, el } from './util.js';

let session = null;
/** True while a move is on its way: the board takes no other click until its answer is shown. */
let busy = false;

/** Cell marks of a Tic-Tac-Toe state: the first mover's stones are X. */
function ticTacToeMarks(state) {
  const n = state.size;
  return Array.from({ length: n * n }, (_, i) => {
    const bit = 2 ** i;
    if (Math.floor(state.x / bit) % 2 === 1) return 'X';
    if (Math.floor(state.o / bit) % 2 === 1) return 'O';
    return '';
  });
}

/** The action key of cell `i` (row, column from 1). */
const cellKey = (i, n) => `${Math.floor(i / n) + 1},${(i % n) + 1}`;

function boardOf(view) {
  // A trained policy can play the last attempt without the person: it moves first, and the attempt ends
  // (by the turn limit, say) before the person's turn. The meta-episode is then over with no position the
  // person has seen.
  if (view.state === null)
    return el('p', {}, 'The agent ended the last attempt before you had a move: there is no board to show.');
  const yourMove = view.status === 'your-move';
  if (view.game === 'tictactoe') {
    const n = view.state.size;
    return el(
      'div',
      {},
      el('p', {}, `You are ${view.seat === 0 ? 'X' : 'O'}.`),
      boardElement(ticTacToeMarks(view.state), n, yourMove ? (i) => void move(cellKey(i, n)) : null),
    );
  }
  if (view.game === 'kuhn-poker') {
    const cards = view.state.cards ?? [null, null];
    const buttons = view.legal.map((a) => {
      const b = el(
        'button',
        { type: 'button', 'data-action': a },
        a === 'PASS' ? 'Pass / check' : 'Bet / call',
      );
      b.addEventListener('click', () => void move(a));
      return b;
    });
    return el(
      'div',
      {},
      el(
        'p',
        {},
        'Your card: ',
        cardElement(cards[view.seat]),
        ' opponent: ',
        cardElement(cards[1 - view.seat]),
      ),
      el(
        'p',
        {},
        `Betting so far: ${view.state.history === '' ? '(none)' : view.state.history.replace(/p/g, 'pass ').replace(/b/g, 'bet ')}`,
      ),
      el('div', { className: 'actions' }, ...buttons),
    );
  }
  const buttons = view.legal.map((a) => {
    const b = el('button', { type: 'button', 'data-action': a }, a);
    b.addEventListener('click', () => void move(a));
    return b;
  });
  return el('div', { className: 'actions' }, el('pre', {}, JSON.stringify(view.state)), ...buttons);
}

function show(view) {
  session = view;
  const status = document.getElementById('play-status');
  const result = view.results.find((r) => r.attempt === view.attempt);
  const head = `Attempt ${view.attempt + 1} of ${view.attempts} against ${view.opponent}. `;
  if (view.status === 'your-move') status.textContent = `${head}Your move.`;
  else if (view.status === 'attempt-over')
    status.textContent = `${head}Attempt over: ${result?.outcome} (${result?.return}).`;
  else status.textContent = `${head}Game over: ${view.results.map((r) => r.outcome).join(', ')}.`;
  document.getElementById('play-board').replaceChildren(boardOf(view));
  const next = el('button', { type: 'button', id: 'play-next' }, 'Next attempt (same deal, same opponent)');
  next.addEventListener('click', () => void nextAttempt());
  const results = view.results.map((r) =>
    el('li', {}, `attempt ${r.attempt + 1}: ${r.outcome} (${r.return})`),
  );
  const moves = view.moves
    .filter((m) => m.by !== 'chance')
    .map((m) => `${m.by}: ${m.action}`)
    .join(' · ');
  document
    .getElementById('play-log')
    .replaceChildren(
      ...(view.status === 'attempt-over' ? [next] : []),
      el('p', {}, `Moves: ${moves || '—'}`),
      el('ol', {}, ...results),
      view.agent
        ? agentTranscript(view.agent)
        : el('p', {}, 'This opponent is a fixed archetype: it writes no reflections between attempts.'),
    );
  document.body.dataset.playStatus = view.status;
}

/** What a trained policy wrote: its moves per attempt, and its reflections between attempts. */
function agentTranscript(turns) {
  const box = el('div', { className: 'agent' }, el('h3', {}, 'The agent'));
  let attempt = -1;
  for (const t of turns) {
    if (t.kind === 'reflection') {
      box.append(
        el('p', { className: 'agent-reflection' }, `Reflection before attempt ${t.attempt + 1}: ${t.text}`),
      );
      continue;
    }
    if (t.attempt !== attempt) {
      attempt = t.attempt;
      box.append(el('h4', {}, `Attempt ${attempt + 1}`));
    }
    box.append(
      el(
        'p',
        { className: t.valid ? 'agent-move' : 'agent-move invalid' },
        `${t.valid ? 'move' : 'invalid'}: ${t.text}`,
      ),
    );
  }
  return box;
}

function fail(error) {
  document.getElementById('play-status').textContent = `Error: ${error.message}`;
}

/**
 * Sends the person's move; the board ignores clicks until the answer is shown (a trained agent replays its
 * meta-episode first, which takes a while). Against an agent the move says how many moves the board showed,
 * so a click on a position the game has left is refused (409) and the current position is shown instead.
 */
async function move(action) {
  if (!session || busy) return;
  busy = true;
  document.body.dataset.playBusy = 'true';
  const { session: id, agent } = session;
  if (agent) document.getElementById('play-status').textContent = 'The agent is answering…';
  const body = agent ? { action, after: session.moves.length } : { action };
  try {
    show(await api(`/api/play/${id}/move`, body));
  } catch (error) {
    // Show the position the game is at (the move was not played), then the reason.
    await api(`/api/play/${id}`).then(show, () => undefined);
    fail(error);
  } finally {
    busy = false;
    delete document.body.dataset.playBusy;
  }
}

async function nextAttempt() {
  if (!session) return;
  await api(`/api/play/${session.session}/next`, {}).then(show, fail);
}

export async function initPlay() {
  const { games, agents } = await api('/api/play/games');
  const gameSelect = document.getElementById('play-game');
  const opponentSelect = document.getElementById('play-opponent');
  const fillOpponents = () => {
    const game = games.find((g) => g.id === gameSelect.value);
    const trained = agents.filter((a) => a.game === gameSelect.value);
    opponentSelect.replaceChildren(
      ...trained.map((a) => el('option', { value: `agent:${a.id}` }, `trained policy: ${a.name}`)),
      ...(game?.opponents ?? []).map((o) => el('option', { value: o }, o)),
    );
  };
  gameSelect.replaceChildren(...games.map((g) => el('option', { value: g.id }, g.name)));
  // A trained policy picks its own seat from the task, as in evaluation: the seat choice is the fixed
  // opponents' only.
  const seatSelect = document.getElementById('play-seat');
  const fitSeat = () => {
    const agent = opponentSelect.value.startsWith('agent:');
    seatSelect.disabled = agent;
    seatSelect.title = agent ? 'A trained policy takes its seat from the task, as in evaluation.' : '';
  };
  gameSelect.addEventListener('change', () => {
    fillOpponents();
    fitSeat();
  });
  opponentSelect.addEventListener('change', fitSeat);
  fillOpponents();
  fitSeat();
  if (games.length === 0)
    document.getElementById('play-status').textContent = 'No games to play in this dashboard.';
  document.getElementById('play-start').addEventListener('click', () => {
    const attempts = Number(document.getElementById('play-attempts').value);
    const choice = opponentSelect.value;
    // A trained policy picks its own seat from the task, as in evaluation.
    const body = choice.startsWith('agent:')
      ? { agent: choice.slice('agent:'.length), attempts }
      : {
          game: gameSelect.value,
          opponent: choice,
          attempts,
          seat: Number(seatSelect.value),
        };
    document.getElementById('play-status').textContent = 'Starting…';
    void api('/api/play', body).then(show, fail);
  });
}
