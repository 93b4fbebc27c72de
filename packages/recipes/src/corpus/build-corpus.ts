/**
 * The supervised warm-start corpus (architecture/recipes.md): meta-episodes played by a non-exploiting teacher through
 * the core runner, turned into (prompt messages, response) pairs — one per policy call, play and reflect
 * turns alike — exactly as the model will see them at RL time.
 */

import {
  type ChatMessage,
  type ContextLayout,
  computeMetrics,
  type EnvV1,
  type MemoryV1,
  type MetaEpisodeBatchRecord,
  type MetaEpisodeMetricsV1,
  mergeBatches,
  type OpponentV1,
  type PolicyRequestV1,
  type PolicyV1,
  type PopulationV1,
  type PromptStyle,
  RolloutError,
  runMetaEpisodes,
  type SeatOption,
  type TurnPhase,
} from '@mage-rl/core';
import { createMemory } from '@mage-rl/reflection';
import { type AnyTeacherOptions, createTeacher } from '../teachers';
import { opponentFactory } from '../wiring';

export interface WarmStartCorpusOptions<S = unknown, A = unknown> {
  readonly env: EnvV1<S, A>;
  /** Opponents drawn per group (two-player envs); or give `opponents`. */
  readonly population?: PopulationV1 | undefined;
  readonly opponents?: readonly string[] | undefined;
  /** Default: the `@mage-rl/opponents` registry of `env.id`. */
  readonly makeOpponent?: ((opponentId: string) => OpponentV1<S, A>) | undefined;
  readonly groups: number;
  readonly groupSize: number;
  /** K. Default 3. */
  readonly attempts?: number;
  /** Default: `reflection` memory (`@mage-rl/reflection`). */
  readonly memory?: MemoryV1;
  /** Default `transcript` (mage-tiny's layout). */
  readonly context?: ContextLayout;
  /** Default `compact`. */
  readonly style?: PromptStyle;
  /** Default `{ mixed: 0.5 }` for two-player envs, `first` otherwise. */
  readonly seats?: SeatOption;
  /** Default true (as in training). */
  readonly earlyStop?: boolean;
  /** Rollout iterations (each a fresh draw of tasks and opponents). Default 1. */
  readonly iterations?: number;
  readonly seed: number | string;
  /** Default: `createTeacher(env, { style, ...teacherOptions })`. */
  readonly teacher?: PolicyV1;
  readonly teacherOptions?: AnyTeacherOptions;
  readonly signal?: AbortSignal;
}

/** One supervised example: the prompt as chat messages and the teacher's response text. */
export interface WarmStartExample {
  readonly messages: readonly ChatMessage[];
  readonly response: string;
  readonly phase: TurnPhase;
  /** False when the env rejected the action or the note lacked its tag (a teacher bug; never expected). */
  readonly valid: boolean;
  readonly envId: string;
  readonly opponentId: string | null;
  readonly slot: string;
  readonly iteration: number;
  readonly attempt: number;
  /** Play turn inside the attempt; −1 for reflect turns. */
  readonly turn: number;
}

export interface WarmStartCorpus {
  readonly examples: readonly WarmStartExample[];
  /** The teacher's own results (success per attempt …) over all iterations. */
  readonly metrics: MetaEpisodeMetricsV1;
  readonly batches: readonly MetaEpisodeBatchRecord[];
}

/** Records the requests of every `generate` call so rows can be paired with their chat messages. */
function recording(policy: PolicyV1): { policy: PolicyV1; calls: PolicyRequestV1[][] } {
  const calls: PolicyRequestV1[][] = [];
  return {
    calls,
    policy: {
      specificationVersion: 'v1',
      id: policy.id,
      generate(requests, options) {
        calls.push([...requests]);
        return policy.generate(requests, options);
      },
    },
  };
}

/** Plays `iterations × groups × groupSize` teacher meta-episodes and returns one example per row. */
export async function buildWarmStartCorpus<S, A>(
  options: WarmStartCorpusOptions<S, A>,
): Promise<WarmStartCorpus> {
  const style = options.style ?? 'compact';
  const teacher = options.teacher ?? createTeacher(options.env, { style, ...options.teacherOptions });
  const iterations = options.iterations ?? 1;
  const makeOpponent = options.makeOpponent ?? opponentFactory<S, A>(options.env.id);
  const examples: WarmStartExample[] = [];
  const batches: MetaEpisodeBatchRecord[] = [];
  for (let iteration = 0; iteration < iterations; iteration++) {
    const { policy, calls } = recording(teacher);
    let tick = 0;
    const batch = await runMetaEpisodes({
      env: options.env,
      policy,
      memory: options.memory ?? createMemory({ mode: 'reflection' }),
      ...(options.population ? { population: options.population } : {}),
      ...(options.opponents ? { opponents: options.opponents } : {}),
      ...(makeOpponent && options.env.needsOpponent ? { makeOpponent } : {}),
      groups: options.groups,
      groupSize: options.groupSize,
      attempts: options.attempts ?? 3,
      context: options.context ?? 'transcript',
      style,
      seats: options.seats ?? (options.env.needsOpponent ? { mixed: 0.5 } : 'first'),
      earlyStop: options.earlyStop ?? true,
      seed: options.seed,
      iteration,
      ...(options.signal ? { signal: options.signal } : {}),
      onEvent(event) {
        if (event.type !== 'turn-end') return;
        const requests = calls[tick++];
        if (!requests || requests.length !== event.rows.length) {
          throw new RolloutError('RUNNER_FAILURE', 'Warm-start corpus: rows and requests are out of step.');
        }
        event.rows.forEach((row, i) => {
          examples.push({
            messages: (requests[i] as PolicyRequestV1).messages,
            response: row.responseText,
            phase: row.phase,
            valid: row.valid,
            envId: options.env.id,
            opponentId: row.opponentId,
            slot: row.slot,
            iteration,
            attempt: row.attempt,
            turn: row.turn,
          });
        });
      },
    });
    batches.push(batch);
  }
  return { examples, metrics: computeMetrics(mergeBatches(batches)), batches };
}

/** Every text of the examples (message contents and responses), for `collectVocabulary`. */
export function corpusTexts(examples: readonly WarmStartExample[]): string[] {
  const out: string[] = [];
  for (const e of examples) {
    for (const m of e.messages) out.push(m.content);
    out.push(e.response);
  }
  return out;
}
