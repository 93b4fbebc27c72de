// Small helpers of the dashboard page.

/** GET (or POST with a JSON body) an API route; a 4xx/5xx answer throws its `error` message. */
export async function api(path, body) {
  const init =
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }));
  if (!res.ok) throw new Error(data.error ?? `${res.status} ${res.statusText}`);
  return data;
}

/** An element with properties (`className`, `data-*` and other attributes) and children. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'className') node.className = value;
    else if (key === 'checked' || key === 'disabled' || key === 'value') node[key] = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

export const percent = (x) => `${(100 * x).toFixed(1)}%`;

/**
 * A Tic-Tac-Toe board from cell marks ('X', 'O' or ''): buttons when `onClick` is given (a function: empty
 * cells are clickable; null: all disabled), plain cells when it is undefined.
 */
export function boardElement(marks, size, onClick) {
  const board = el('div', { className: 'board' });
  board.style.gridTemplateColumns = `repeat(${size}, 3rem)`;
  marks.forEach((mark, i) => {
    const cell =
      onClick === undefined
        ? el('div', { className: `cell ${mark}`, 'data-cell': i }, mark)
        : el(
            'button',
            {
              type: 'button',
              className: `cell ${mark}`,
              'data-cell': i,
              disabled: mark !== '' || onClick === null,
            },
            mark,
          );
    if (onClick && mark === '') cell.addEventListener('click', () => onClick(i));
    board.append(cell);
  });
  return board;
}

/** A playing card; `null` draws its back. */
export function cardElement(card) {
  return el('span', { className: card ? 'card' : 'card hidden' }, card ?? '?');
}

/**
 * The board or the cards an observation text shows, drawn; null when none is recognised. Reads the
 * last grid of X / O / . rows (compact `X . O` or verbose `1   X | . | O`) and a `card K` mention.
 */
export function drawObservation(text) {
  const lines = text.split('\n');
  let grid = [];
  let best = null;
  for (const line of lines) {
    const m = /^\s*(?:\d+\s+)?([XO.](?:\s*\|?\s*[XO.])+)\s*$/.exec(line);
    if (m) grid.push(m[1].replace(/[\s|]/g, '').split(''));
    else {
      if (grid.length >= 3 && grid.every((r) => r.length === grid.length)) best = grid;
      grid = [];
    }
  }
  if (grid.length >= 3 && grid.every((r) => r.length === grid.length)) best = grid;
  if (best) {
    const marks = best.flat().map((c) => (c === '.' ? '' : c));
    return boardElement(marks, best.length, undefined);
  }
  const cards = [...text.matchAll(/\bcard\s*(?:is\s*|:\s*)?([JQK])\b/gi)];
  if (cards.length > 0)
    return el('div', {}, 'Your card: ', cardElement(cards[cards.length - 1][1].toUpperCase()));
  return null;
}
