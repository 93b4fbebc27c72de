/**
 * The metrics of a run as the charts read them, parsed from `metrics.jsonl` text. A torn last line (the
 * run is writing it, or was killed while writing it) is held back and reported; damaged lines before it
 * are counted and left out.
 */

import type { EvalStatsV1, MetricsLineV1, RolloutStatsV1, UpdateStatsV1 } from '@mage-rl/core';

export interface RunMetrics {
  /** Stable id of the run on the page (its index in the dashboard's list). */
  readonly id: string;
  /** Display name: the method and env from config.json, else the directory name. */
  readonly name: string;
  readonly rollouts: readonly RolloutStatsV1[];
  readonly updates: readonly UpdateStatsV1[];
  readonly evals: readonly EvalStatsV1[];
}

export interface ParsedMetrics {
  readonly lines: MetricsLineV1[];
  /** 1-based numbers of complete lines that are not metrics lines. */
  readonly damaged: number[];
  /** Text after the last newline that does not parse yet (a line being written, or torn). */
  readonly partial: string;
}

function metricsLine(text: string): MetricsLineV1 | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const type = (value as { type?: unknown }).type;
    const iteration = (value as { iteration?: unknown }).iteration;
    if (typeof iteration !== 'number') return null;
    return type === 'rollout' || type === 'update' || type === 'eval' ? (value as MetricsLineV1) : null;
  } catch {
    return null;
  }
}

/**
 * Parses metrics.jsonl text. `firstLine` numbers the lines when `text` continues an earlier read.
 * A last line without its newline that parses completely is taken (a finished file need not end in one).
 */
export function parseMetrics(text: string, firstLine = 1): ParsedMetrics {
  const parts = text.split('\n');
  const last = parts.pop() ?? '';
  const lines: MetricsLineV1[] = [];
  const damaged: number[] = [];
  parts.forEach((raw, i) => {
    if (raw.trim() === '') return;
    const line = metricsLine(raw);
    if (line) lines.push(line);
    else damaged.push(firstLine + i);
  });
  return { lines, damaged, partial: last };
}

/** Groups parsed lines by kind. */
export function runMetrics(id: string, name: string, lines: readonly MetricsLineV1[]): RunMetrics {
  const rollouts: RolloutStatsV1[] = [];
  const updates: UpdateStatsV1[] = [];
  const evals: EvalStatsV1[] = [];
  for (const line of lines) {
    if (line.type === 'rollout') rollouts.push(line);
    else if (line.type === 'update') updates.push(line);
    else evals.push(line);
  }
  return { id, name, rollouts, updates, evals };
}
