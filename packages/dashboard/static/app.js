// The dashboard page: views (curves, replay, play), messages, and live curves over server-sent events.
// Plain ES modules, no build step; vega, vega-lite and vega-embed come from /vendor (local copies).
import { initPlay } from './play.js';
import { initReplay } from './replay.js';
import { api, el, percent } from './util.js';

const state = { runs: [], selected: new Set(), views: new Map(), updates: 0, refreshTimer: null };

/** Shows what is wrong with each run: a missing directory, no metrics yet, a torn or damaged line. */
function showMessages(runs) {
  const box = document.getElementById('messages');
  box.replaceChildren();
  for (const run of runs) {
    if (run.error)
      box.append(el('div', { className: 'message error', 'data-run': run.id }, `${run.name}: ${run.error}`));
    if (run.partial) {
      box.append(
        el(
          'div',
          { className: 'message warn', 'data-run': run.id },
          `${run.name}: the last line of metrics.jsonl is incomplete (being written, or cut by a killed run); it shows once complete.`,
        ),
      );
    }
    if (run.damaged.length > 0) {
      box.append(
        el(
          'div',
          { className: 'message warn', 'data-run': run.id },
          `${run.name}: damaged metrics lines left out (line ${run.damaged.join(', ')}).`,
        ),
      );
    }
  }
}

function runPicker() {
  const box = document.getElementById('run-picker');
  box.replaceChildren(el('span', {}, 'Runs:'));
  for (const run of state.runs) {
    const input = el('input', { type: 'checkbox', checked: state.selected.has(run.id), value: run.id });
    input.addEventListener('change', () => {
      if (input.checked) state.selected.add(run.id);
      else state.selected.delete(run.id);
      void refreshCharts(true);
    });
    box.append(el('label', {}, input, ` ${run.name} (${run.lines} lines)`));
  }
}

function tableOf(t, domain, title) {
  const rows = t[domain];
  if (rows.length === 0) return null;
  const k = Math.max(...rows.map((r) => r.passAtK.length));
  const head = el(
    'tr',
    {},
    el('th', {}, 'opponent'),
    el('th', {}, 'meta-episodes'),
    ...Array.from({ length: k }, (_, i) => el('th', {}, `pass@${i + 1}`)),
    el('th', {}, 'invalid moves'),
  );
  const body = rows.map((r) =>
    el(
      'tr',
      {},
      el('td', {}, r.opponent),
      el('td', {}, String(r.metaEpisodes)),
      ...r.passAtK.map((p) => el('td', {}, `${percent(p.rate)} [${percent(p.low)}, ${percent(p.high)}]`)),
      el('td', {}, percent(r.invalid)),
    ),
  );
  return el(
    'div',
    {},
    el('h3', {}, `${t.name}: ${title} after ${t.completed} updates`),
    el('table', {}, head, ...body),
  );
}

function showTables(tables) {
  const box = document.getElementById('tables');
  const parts = tables.flatMap((t) => [
    tableOf(t, 'inDomain', 'in-domain'),
    tableOf(t, 'outOfDomain', 'out-of-domain'),
  ]);
  box.replaceChildren(...parts.filter(Boolean));
  if (box.childElementCount === 0) box.append(el('p', {}, 'No evaluation recorded yet.'));
}

/** Fetches the chart specs; embeds new charts, and replaces the data of charts already on the page. */
async function refreshCharts(rebuild = false) {
  const ids = [...state.selected].join(',');
  const data = await api(`/api/charts?runs=${encodeURIComponent(ids)}`);
  const box = document.getElementById('charts');
  if (rebuild) {
    for (const { view } of state.views.values()) view.finalize();
    state.views.clear();
    box.replaceChildren();
  }
  const started = performance.now();
  for (const chart of data.charts) {
    const values = chart.spec.datasets.points;
    const known = state.views.get(chart.id);
    if (known) {
      const changes = globalThis.vega
        .changeset()
        .remove(() => true)
        .insert(values);
      await known.view.change('points', changes).runAsync();
      known.div.dataset.points = String(values.length);
      continue;
    }
    const div = el('div', {
      className: 'chart',
      id: `chart-${chart.id}`,
      'data-points': String(values.length),
    });
    box.append(div);
    const result = await globalThis.vegaEmbed(div, chart.spec, {
      actions: false,
      renderer: 'svg',
      logLevel: 1,
    });
    state.views.set(chart.id, { view: result.view, div });
  }
  showTables(data.tables);
  state.updates++;
  document.body.dataset.chartUpdates = String(state.updates);
  document.body.dataset.chartMs = String(Math.round(performance.now() - started));
}

function scheduleRefresh() {
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(() => void refreshCharts().catch(showError), 200);
}

function showError(error) {
  document
    .getElementById('messages')
    .append(el('div', { className: 'message error' }, String(error.message ?? error)));
}

function listen() {
  const live = document.getElementById('live');
  const source = new EventSource('/api/events');
  source.addEventListener('open', () => {
    live.textContent = 'live';
  });
  source.addEventListener('error', () => {
    live.textContent = 'reconnecting…';
  });
  source.addEventListener('metrics', (event) => {
    const { status } = JSON.parse(event.data);
    state.runs = state.runs.map((r) => (r.id === status.id ? status : r));
    showMessages(state.runs);
    runPicker();
    scheduleRefresh();
  });
}

function route() {
  const view = (location.hash || '#curves').slice(1);
  for (const section of document.querySelectorAll('.view')) section.hidden = section.id !== `view-${view}`;
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.view === view);
  document.body.dataset.view = view;
}

async function main() {
  window.addEventListener('hashchange', route);
  route();
  const { runs } = await api('/api/runs');
  state.runs = runs;
  state.selected = new Set(runs.map((r) => r.id));
  showMessages(runs);
  runPicker();
  if (runs.length === 0) {
    document
      .getElementById('charts')
      .append(el('p', {}, 'No runs given: start with mage dashboard <run-dir>…'));
  }
  await refreshCharts(true);
  listen();
  initReplay(runs).catch(showError);
  initPlay().catch(showError);
  document.body.dataset.ready = 'true';
}

main().catch(showError);
