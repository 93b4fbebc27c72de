// Replay: pick a run, an iteration or evaluation, and a meta-episode; step through every attempt turn by
// turn (observation drawn, the model's raw output, valid or the invalid reason, reward, advantage), with the
// reflection written between attempts.
import { api, drawObservation, el } from './util.js';

const replay = { record: null, steps: [], current: 0 };

const fileLabel = (f) =>
  `${f.kind === 'train' ? 'training' : 'evaluation'} ${f.iteration < 0 ? 'before training' : `iteration ${f.iteration}`}`;

/** Attempt headers, turns and reflections of an episode, in the order they happened. */
function stepsOf(episode) {
  const order = [...episode.turns].sort((a, b) => a.attempt - b.attempt || a.turn - b.turn);
  const steps = [];
  let attempt = -1;
  for (const t of order) {
    if (t.phase === 'reflect') {
      steps.push({ kind: 'reflection', turn: t });
      continue;
    }
    if (t.attempt !== attempt) {
      attempt = t.attempt;
      steps.push({ kind: 'attempt', attempt, record: episode.attempts.find((a) => a.attempt === attempt) });
    }
    steps.push({ kind: 'turn', turn: t });
  }
  return steps;
}

function stepLabel(step) {
  if (step.kind === 'attempt') {
    const r = step.record;
    return `Attempt ${step.attempt + 1}${r ? ` — ${r.outcome.label}, return ${r.return}` : ''}`;
  }
  const t = step.turn;
  if (step.kind === 'reflection') return `Reflection before attempt ${t.attempt + 1}: ${t.response}`;
  return `Turn ${t.turn + 1}: ${t.valid ? 'valid' : `invalid (${t.invalid ?? 'reflection'})`}, reward ${t.reward}`;
}

function showDetail() {
  const box = document.getElementById('replay-detail');
  const step = replay.steps[replay.current];
  for (const [i, li] of document.querySelectorAll('#replay-steps li').entries()) {
    li.classList.toggle('current', i === replay.current);
  }
  if (!step) {
    box.replaceChildren(el('p', {}, 'No turns recorded in this meta-episode.'));
    return;
  }
  if (step.kind === 'attempt') {
    box.replaceChildren(el('h3', {}, stepLabel(step)), el('p', {}, 'Step forward to see its turns.'));
    return;
  }
  const t = step.turn;
  const badges = el(
    'p',
    {},
    el(
      'span',
      { className: `badge ${t.valid ? 'good' : 'bad'}` },
      t.valid ? 'parsed' : `invalid: ${t.invalid ?? 'no <remark>'}`,
    ),
    el('span', { className: 'badge' }, `reward ${t.reward}`),
    el(
      'span',
      { className: 'badge' },
      t.advantage === null ? 'no advantage (evaluation)' : `advantage ${t.advantage.toFixed(3)}`,
    ),
  );
  const drawn = t.phase === 'play' ? drawObservation(t.observation) : null;
  box.replaceChildren(
    el(
      'h3',
      {},
      t.phase === 'reflect'
        ? `Reflection before attempt ${t.attempt + 1}`
        : `Attempt ${t.attempt + 1}, turn ${t.turn + 1}`,
    ),
    badges,
    ...(drawn ? [drawn] : []),
    el('h4', {}, 'Observation (end of the prompt)'),
    el('pre', { className: 'observation' }, t.observation),
    el('h4', {}, 'Model output'),
    el('pre', { className: 'response' }, t.response),
  );
}

function showEpisode() {
  const index = Number(document.getElementById('replay-episode').value);
  const episode = replay.record?.episodes[index];
  const list = document.getElementById('replay-steps');
  const summary = document.getElementById('replay-summary');
  if (!episode) {
    list.replaceChildren();
    summary.textContent = 'No meta-episodes in this file.';
    showDetail();
    return;
  }
  summary.textContent = `${episode.suite} · opponent ${episode.task.opponentId ?? '—'} · seat ${episode.task.seat} · task seed ${episode.task.seed} · ${episode.attempts.length} attempt(s)`;
  replay.steps = stepsOf(episode);
  replay.current = replay.steps.length > 1 ? 1 : 0;
  list.replaceChildren(
    ...replay.steps.map((step, i) => {
      const cls =
        step.kind === 'attempt'
          ? 'attempt-head'
          : step.kind === 'reflection'
            ? 'reflection'
            : step.turn.valid
              ? ''
              : 'invalid';
      const li = el('li', { className: cls, 'data-step': i }, stepLabel(step));
      li.addEventListener('click', () => {
        replay.current = i;
        showDetail();
      });
      return li;
    }),
  );
  showDetail();
}

async function loadFile(runId) {
  const name = document.getElementById('replay-file').value;
  const select = document.getElementById('replay-episode');
  if (!name) {
    replay.record = null;
    select.replaceChildren();
    document.getElementById('replay-summary').textContent =
      'This run has no replay files (episodes/): it was recorded before replay existed, or has not finished an iteration.';
    return;
  }
  replay.record = await api(`/api/runs/${runId}/episodes/${name}`);
  select.replaceChildren(
    ...replay.record.episodes.map((e, i) =>
      el(
        'option',
        { value: i },
        `${e.suite} · ${e.task.opponentId ?? 'no opponent'} · ${e.slot} · ${e.attempts.map((a) => a.outcome.label).join(' → ')}`,
      ),
    ),
  );
  showEpisode();
}

async function loadRun() {
  const runId = document.getElementById('replay-run').value;
  const { files } = await api(`/api/runs/${runId}/episodes`);
  const select = document.getElementById('replay-file');
  select.replaceChildren(...files.map((f) => el('option', { value: f.name }, fileLabel(f))));
  // Newest training iteration first: what the run is doing now.
  const newest = files.filter((f) => f.kind === 'train').at(-1) ?? files.at(-1);
  if (newest) select.value = newest.name;
  await loadFile(runId);
}

export async function initReplay(runs) {
  const runSelect = document.getElementById('replay-run');
  runSelect.replaceChildren(
    ...runs.filter((r) => !r.error).map((r) => el('option', { value: r.id }, r.name)),
  );
  runSelect.addEventListener('change', () => void loadRun());
  document.getElementById('replay-file').addEventListener('change', () => void loadFile(runSelect.value));
  document.getElementById('replay-episode').addEventListener('change', showEpisode);
  document.getElementById('replay-prev').addEventListener('click', () => {
    replay.current = Math.max(0, replay.current - 1);
    showDetail();
  });
  document.getElementById('replay-next').addEventListener('click', () => {
    replay.current = Math.min(replay.steps.length - 1, replay.current + 1);
    showDetail();
  });
  if (runSelect.value !== '') await loadRun();
  document.body.dataset.replayReady = 'true';
}
