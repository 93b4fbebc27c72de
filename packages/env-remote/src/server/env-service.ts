/** The state behind `mage env-serve`: instances, their episodes, and the env built per option set. */

import {
  createRng,
  type EnvEpisodeV1,
  type EnvObservationV1,
  type EnvV1,
  MageError,
  type OpponentV1,
  type PopulationEntry,
} from '@mage-rl/core';
import { checkOpponentCost, HttpError } from '@mage-rl/core/http';
import type { EnvServerOptions } from './env-server';

interface Instance {
  episode?: EnvEpisodeV1 | undefined;
  env?: EnvV1;
  /** What the episode was made for: a reset with the same key and attempt > 0 keeps it. */
  key?: string;
  observation?: EnvObservationV1;
  /** When a request last touched it (`performance.now()`), for the idle expiry. */
  usedAt: number;
  /** Resets without a seed so far that started a meta-episode: the next one plays this seed. */
  seedless: number;
  /** The task seed of the current meta-episode. */
  seed?: number;
}

/** Instances untouched this long are dropped by default. */
export const DEFAULT_INSTANCE_TTL_MS = 30 * 60_000;

export interface ResetRequest {
  readonly env_idx: number;
  readonly env?: string | undefined;
  readonly session_id?: number | null | undefined;
  readonly attempt?: number | undefined;
  readonly style?: 'verbose' | 'compact' | undefined;
  readonly seat?: 'first' | 'second' | undefined;
  readonly opponent?: string | null | undefined;
  readonly options?: Record<string, unknown> | undefined;
}

const TAG = /<action>/i;

/** What a reset played: the task seed, the attempt and the opponent (null for single-agent envs). */
export interface ResetChoice {
  readonly seed: number;
  readonly attempt: number;
  readonly opponent: string | null;
}

/**
 * The opponent drawn for task `seed` from `population`, proportional to weight: the same seed always
 * draws the same one, so every attempt of a meta-episode (one seed) faces one opponent.
 */
export function opponentForSeed(population: readonly PopulationEntry[], seed: number): string {
  const index = createRng(seed)
    .split('env-serve-opponent')
    .weighted(population.map((e) => e.weight));
  const entry = population[index];
  if (!entry) throw new Error(`no opponent at ${index} of a population of ${population.length}`);
  return entry.id;
}

/** What a client sent as a message: a user error (400) when it is a `MageError` about the input. */
function clientError(error: unknown, what: string): HttpError {
  const message = error instanceof Error ? error.message : String(error);
  if (
    MageError.isInstance(error) &&
    ['INVALID_CONFIG', 'UNKNOWN_ID', 'INVALID_ARGUMENT'].includes(error.code)
  ) {
    return new HttpError(400, `${what}: ${message}`);
  }
  return new HttpError(500, `${what}: ${message}`);
}

export class EnvService {
  private readonly instances = new Map<number, Instance>();
  private nextId = 0;
  private readonly envs = new Map<string, EnvV1>();

  constructor(private readonly o: EnvServerOptions) {}

  info(): Record<string, unknown> {
    return {
      server: 'mage env-serve',
      dialect: 'webshop',
      env: this.o.envId,
      options: this.o.defaultOptions ?? {},
      opponent: this.o.defaultOpponent ?? null,
      population: this.o.defaultPopulation?.name ?? null,
      instances: this.instances.size,
      maxInstances: this.maxInstances(),
    };
  }

  ids(): number[] {
    this.expire();
    return [...this.instances.keys()];
  }

  create(): number {
    this.expire();
    if (this.instances.size >= this.maxInstances()) {
      throw new HttpError(
        503,
        `all ${this.maxInstances()} instances are in use; close some (POST /close) or start the server with a higher --max-instances`,
      );
    }
    const id = this.nextId++;
    this.instances.set(id, { usedAt: performance.now(), seedless: 0 });
    return id;
  }

  close(id: number): { closed: true } {
    if (!this.instances.delete(id)) throw new HttpError(404, `no instance ${id}`);
    return { closed: true };
  }

  /**
   * Starts (or, for attempt > 0 of the same task, keeps) the instance's episode and resets it to the
   * attempt. A reset without a seed plays the instance's next seedless seed (0, 1, 2 …), or the current
   * meta-episode's seed when it continues one (attempt > 0). An env with opponents plays the one the
   * reset names, else the server's default, else one drawn from the default population by task seed.
   */
  reset(r: ResetRequest): [string, Record<string, unknown>] {
    const inst = this.instance(r.env_idx);
    if (r.env !== undefined && r.env !== this.o.envId) {
      throw new HttpError(
        400,
        `this server serves env '${this.o.envId}', not '${r.env}': start 'mage env-serve ${r.env}' for it or change --env`,
      );
    }
    const options = r.options ?? this.o.defaultOptions ?? {};
    const env = this.envFor(options);
    const seat = r.seat ?? this.o.defaultSeat ?? 'first';
    const style = r.style ?? this.o.defaultStyle ?? 'verbose';
    const attempt = r.attempt ?? 0;
    const seed = r.session_id ?? (attempt > 0 && inst.seed !== undefined ? inst.seed : inst.seedless++);
    const opponentId = env.needsOpponent ? this.opponentIdFor(r.opponent ?? null, seed) : null;
    const key = JSON.stringify([env.options, seed, seat, style, opponentId]);
    if (!(inst.episode && inst.key === key && attempt > 0)) {
      const opponent =
        opponentId === null ? undefined : this.opponent(opponentId, (r.opponent ?? null) === null);
      try {
        inst.episode = env.createEpisode({
          seed,
          seat,
          style,
          rng: createRng(seed),
          ...(opponent ? { opponent } : {}),
        });
      } catch (error) {
        inst.episode = undefined;
        throw clientError(error, 'the env could not start the task');
      }
      inst.key = key;
      inst.env = env;
    }
    inst.seed = seed;
    const episode = inst.episode;
    try {
      const observation = episode.reset(attempt);
      inst.observation = observation;
      const played: ResetChoice = { seed, attempt, opponent: opponentId };
      return [
        observation.text,
        {
          env: this.o.envId,
          observation,
          rules: episode.rules(),
          initialText: episode.initialText(),
          played,
        },
      ];
    } catch (error) {
      inst.episode = undefined;
      throw clientError(error, 'the env could not reset');
    }
  }

  /** The opponent of a reset that named `asked` (null: none) on task `seed`. */
  private opponentIdFor(asked: string | null, seed: number): string {
    if (asked !== null) return asked;
    if (this.o.defaultOpponent !== undefined) return this.o.defaultOpponent;
    const population = this.o.defaultPopulation;
    if (population && population.entries.length > 0) return opponentForSeed(population.entries, seed);
    throw new HttpError(
      400,
      `env '${this.o.envId}' needs an opponent: send "opponent" or start the server with --opponent`,
    );
  }

  parse(r: { env_idx: number; text: string }): Record<string, unknown> {
    const episode = this.episode(r.env_idx);
    const p = episode.parse(r.text);
    return p.valid ? { valid: true, action: p.action, text: p.text } : { valid: false, reason: p.reason };
  }

  step(r: { env_idx: number; action: string; invalid_reason?: string | undefined }): Record<string, unknown> {
    const inst = this.instance(r.env_idx);
    const episode = this.episode(r.env_idx);
    if (episode.done) throw new HttpError(409, `instance ${r.env_idx}: the attempt is over; reset it first`);
    const parsed =
      r.invalid_reason !== undefined
        ? { valid: false as const, reason: r.invalid_reason }
        : episode.parse(TAG.test(r.action) ? r.action : `<action>${r.action}</action>`);
    let s: ReturnType<EnvEpisodeV1['step']>;
    try {
      s = episode.step(parsed);
    } catch (error) {
      throw clientError(error, 'the env failed on this step');
    }
    inst.observation = s.observation;
    const reveal = s.done ? episode.reveal() : undefined;
    return {
      state: s.observation.text,
      reward: s.reward,
      done: s.done,
      info: {
        observation: s.observation,
        valid: s.valid,
        event: s.event,
        ...(s.outcome ? { outcome: s.outcome } : {}),
        ...(reveal === undefined ? {} : { reveal }),
      },
    };
  }

  /** The env and episode facts of instance `id` (turn, turn limit, players); null before its first reset. */
  facts(id: number): { turn: number; done: boolean; maxTurns: number; numPlayers: number } | null {
    const inst = this.instance(id);
    if (!inst.episode || !inst.env) return null;
    return {
      turn: inst.episode.turn,
      done: inst.episode.done,
      maxTurns: inst.env.maxTurns,
      numPlayers: inst.env.game.numPlayers,
    };
  }

  read(path: string, id: number): unknown {
    const inst = this.instance(id);
    const episode = this.episode(id);
    if (path === '/observation') return inst.observation?.text ?? '';
    if (path === '/instruction_text') return episode.rules();
    return { has_search_bar: false, clickables: inst.env ? this.legalTexts(id, inst.env, episode) : [] };
  }

  private legalTexts(id: number, env: EnvV1, episode: EnvEpisodeV1): string[] {
    if (episode.done) return [];
    try {
      return env.game.legalActions(episode.state).map((a) =>
        env
          .formatAction(a, episode.task.style)
          .replace(/<\/?action>/gi, '')
          .trim(),
      );
    } catch (error) {
      throw clientError(error, `instance ${id}: the legal actions are not available`);
    }
  }

  private maxInstances(): number {
    return this.o.maxInstances ?? 1024;
  }

  /** Drops the instances no request touched for the idle TTL. */
  private expire(): void {
    const oldest = performance.now() - (this.o.instanceTtlMs ?? DEFAULT_INSTANCE_TTL_MS);
    for (const [id, inst] of this.instances) if (inst.usedAt < oldest) this.instances.delete(id);
  }

  private instance(id: number): Instance {
    this.expire();
    const inst = this.instances.get(id);
    if (!inst)
      throw new HttpError(404, `no instance ${id} (closed or idle too long); create one with POST /create`);
    inst.usedAt = performance.now();
    return inst;
  }

  private episode(id: number): EnvEpisodeV1 {
    const episode = this.instance(id).episode;
    if (!episode) throw new HttpError(409, `instance ${id} has no task yet; POST /reset first`);
    return episode;
  }

  /** A fresh opponent `id`; `chosenByServer`: the operator's or the population's, not the client's. */
  private opponent(id: string, chosenByServer: boolean): OpponentV1 {
    if (!this.o.createOpponent) throw new HttpError(400, `env '${this.o.envId}' has no opponents`);
    // The server's own choices (and a client naming the same) are trusted; any other one a client names
    // is capped (an `HttpRefusal` answers it).
    if (!chosenByServer && id !== this.o.defaultOpponent) checkOpponentCost(id, this.o.maxOpponentCost);
    try {
      return this.o.createOpponent(id);
    } catch (error) {
      throw new HttpError(
        400,
        `unknown opponent '${id}': ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** The env for `options`, built once per option set (the oldest dropped past the limit). */
  private envFor(options: Readonly<Record<string, unknown>>): EnvV1 {
    const key = JSON.stringify(options);
    const known = this.envs.get(key);
    if (known) return known;
    let env: EnvV1;
    try {
      env = this.o.createEnv(options);
    } catch (error) {
      throw clientError(error, 'bad env options');
    }
    if (env.id !== this.o.envId)
      throw new HttpError(500, `the server was built for '${this.o.envId}' but made '${env.id}'`);
    this.envs.set(key, env);
    const limit = this.o.maxEnvVariants ?? 16;
    while (this.envs.size > limit) {
      const oldest = this.envs.keys().next().value;
      if (oldest === undefined) break;
      this.envs.delete(oldest);
    }
    return env;
  }
}
