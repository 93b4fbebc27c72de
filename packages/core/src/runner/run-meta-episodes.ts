/**
 * The meta-episode runner: chooses tasks, plays every slot's K attempts in lock-step batches (one
 * `policy.generate` per tick over the active slots), restarts each attempt from the env's initial state,
 * inserts reflect turns, applies early stop, and records one `RowRecord` per policy call. The phases
 * live in their own files; see architecture/runner.md.
 */

import type { MetaEpisodeBatchRecord } from '@mage-rl/spec';
import { createRng } from '../rng';
import { throwIfAbortedHere } from './failures';
import { generateBatch } from './generate-batch';
import {
  RolloutFailureError,
  type RunMetaEpisodesOptions,
  type RunnerEvent,
  resolveRunOptions,
} from './options';
import { batchRecord, type RolloutState } from './rollout-state';
import { applyResponse } from './rows';
import { startGroups } from './start-slots';
import { planTasks } from './tasks';
import { prepareTurn } from './turn-requests';

/**
 * Runs `groups × groupSize` meta-episodes and yields typed events; the generator's return value is the
 * batch record (also carried by the final `rollout-end` event). On failure it yields `rollout-error` and
 * throws the same `RolloutFailureError`, whose `partial` keeps every row recorded so far.
 */
export async function* iterateMetaEpisodes<S, A>(
  options: RunMetaEpisodesOptions<S, A>,
): AsyncGenerator<RunnerEvent, MetaEpisodeBatchRecord, undefined> {
  const resolved = resolveRunOptions(options);
  const { iteration, attempts } = resolved;
  const root = createRng(options.seed);
  const iterationRng = root.split(`iteration-${iteration}`);
  const plan = planTasks(options, resolved, root, iterationRng);
  throwIfAbortedHere(options.signal);
  const { groups, slots } = startGroups(options, resolved, plan, iterationRng);
  const run: RolloutState<S, A> = { options, resolved, groups, slots, pending: [], tick: 0, policyCalls: 0 };
  yield { type: 'rollout-start', iteration, attempts, groups, slots: slots.length };
  try {
    for (;;) {
      const active = slots.filter((s) => s.phase !== 'done');
      const first = active[0];
      if (first === undefined) break;
      throwIfAbortedHere(options.signal, run.tick);
      const turns = active.map((slot) => prepareTurn(run, slot));
      const answered = await generateBatch(run, turns, first);
      const rows = answered.map((turn) => applyResponse(run, turn));
      yield { type: 'turn-end', tick: run.tick, rows, activeSlots: active.length };
      run.tick++;
      for (const event of run.pending.splice(0)) yield event;
    }
  } catch (error) {
    if (error instanceof RolloutFailureError) yield { type: 'rollout-error', error };
    throw error;
  }
  options.memory.commit?.();
  const batch = batchRecord(run);
  yield { type: 'rollout-end', batch, policyCalls: run.policyCalls };
  return batch;
}

/** Promise wrapper of `iterateMetaEpisodes`; `onEvent` sees every event. */
export async function runMetaEpisodes<S, A>(
  options: RunMetaEpisodesOptions<S, A> & { readonly onEvent?: (event: RunnerEvent) => void },
): Promise<MetaEpisodeBatchRecord> {
  const iterator = iterateMetaEpisodes(options);
  for (;;) {
    const next = await iterator.next();
    if (next.done) return next.value;
    options.onEvent?.(next.value);
  }
}
