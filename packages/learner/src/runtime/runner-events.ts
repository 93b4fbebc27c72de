/**
 * Timing events of every graph runner, published on `node:diagnostics_channel` channels so that a
 * profiler (`pnpm bench demo`) can see where a pipeline's time goes without any option being threaded
 * through the trainer. With no subscriber a channel costs one property read per call: nothing is
 * measured or allocated.
 *
 * ```ts
 * import { subscribe } from 'node:diagnostics_channel';
 * subscribe(SESSION_LOAD_CHANNEL, (e) => console.log((e as SessionLoadEvent).key));
 * ```
 */

import { channel } from 'node:diagnostics_channel';

/** Channel name of `SessionLoadEvent`s: a session was created (its graph built and compiled). */
export const SESSION_LOAD_CHANNEL = 'mage-rl:learner:session-load';
/** Channel name of `SessionRunEvent`s: a session ran once. */
export const SESSION_RUN_CHANNEL = 'mage-rl:learner:session-run';

export interface SessionLoadEvent {
  /** The session's key (`<model>:<graph>:<shape>`). */
  readonly key: string;
  /** Milliseconds building and serialising the graph (on the calling thread). */
  readonly buildMs: number;
  /** Milliseconds onnxruntime took to create the session (wherever the sessions live). */
  readonly compileMs: number;
  /** The session's estimated bytes (`LoadOptions.bytes`). */
  readonly bytes: number;
  /** Sessions evicted to make room for it. */
  readonly evicted: number;
}

export interface SessionRunEvent {
  readonly key: string;
  /** Wall milliseconds of the run as the caller saw it (with the worker hop, the feeds and the scatter). */
  readonly ms: number;
}

export const sessionLoadChannel = channel(SESSION_LOAD_CHANNEL);
export const sessionRunChannel = channel(SESSION_RUN_CHANNEL);
