import type { JsonObject } from '../json/json';
import type { PopulationEntry } from '../population/population';
import type { EnvV1, PromptStyle } from './env';
import type { GameModelV1 } from './game-model';
import type { OpponentV1 } from './opponent';
import type { PolicyV1 } from './policy';

/**
 * An environment as the trainer and the CLI know it: how to build it, its training defaults, its
 * opponents, its warm-start teacher and how reports name its results. The first-party envs are
 * definitions like any other; a package that exports one (`envDefinition`, or its default export) can be
 * trained with `mage train --env-package <name or path>`.
 */
export interface EnvDefinitionV1<S = unknown, A = unknown> {
  readonly specificationVersion: 'v1';
  /** `tictactoe`, `higher-lower` …: `--env`, `env.id` of configs, and the `id` of every env `create` builds. */
  readonly id: string;
  /** One line for help texts. */
  readonly description: string;
  /** Builds the env with `options` (the config's `env.options`); a bad option throws `ConfigError`. */
  create(options: Readonly<Record<string, unknown>>): EnvV1<S, A>;
  /**
   * Training defaults: a partial train config, layered over the run preset and under the method and the
   * user's values — for example `{ advantage: { trajGamma: 0.9, invalidPenalty: 0.5 }, ppo: { klCoef: 0.1 },
   * eval: { outOfDomainEnvOptions: [{ boxes: 3 }] } }`. The trainer validates the merged config.
   */
  readonly defaults: JsonObject;
  /**
   * The run the env's published results were made with: the run preset a run of this env uses when none is
   * asked for, and the env's own scale under that preset. Absent: the `laptop` preset as it is.
   */
  readonly recipe?: EnvRecipeV1;
  /** Who the agent plays against. Absent for single-agent envs. */
  readonly opponents?: EnvOpponentsV1<S, A>;
  /** What the embedded model's supervised warm start needs. Absent: train from a model of your own. */
  readonly warmStart?: EnvWarmStartV1<S, A>;
  /** How reports and the game commands name results. */
  readonly labels?: EnvLabelsV1;
  /**
   * pass@k (attempt 1..`attempts`) of a perfect reader of the notes under `options`, for envs where it is
   * known exactly (the hidden-target tasks): experiment reports measure the memory benefit against it.
   */
  adaptationCeiling?(options: Readonly<Record<string, unknown>>, attempts: number): readonly number[];
}

/**
 * An env's recipe: `preset` is chosen when the user names none (`mage train --env <id> --seed N` runs it), and
 * `values` are config values layered right over that preset whenever a run of this env uses it (named or
 * not): the env's scale, such as `{ rollout: { groups: 16 }, ppo: { lr: 3e-4 } }`. They may set only what a
 * run preset sets (scale, sampling and optimisation numbers); what belongs to the game stays in `defaults`.
 */
export interface EnvRecipeV1 {
  /** A run preset id (`laptop`, `reading` …). */
  readonly preset: string;
  /** Values over that preset for this env. Absent: none. */
  readonly values?: JsonObject;
  /** Where the results this recipe reproduces are written up (a path or URL), for help texts. */
  readonly results?: string;
}

export interface EnvOpponentsV1<S = unknown, A = unknown> {
  /** Opponent ids: the fixed ones plus examples of parametric ones (`mcts-100`). */
  readonly ids: readonly string[];
  /** Parametric id patterns, for messages (`mcts-<N>`). */
  readonly patterns: readonly string[];
  /** Whether `id` names an opponent (parametric ids included). */
  has(id: string): boolean;
  /** A fresh opponent; throws `UnknownIdError` for an unknown id. */
  create(id: string): OpponentV1<S, A>;
  /** Named training populations (`balanced`, `ood` …) as weighted opponent ids; `fixed` is added by the trainer. */
  readonly populations: Readonly<Record<string, readonly PopulationEntry[]>>;
  /** The game `mage match` (and, where small enough, `mage solve` and `mage best-response`) plays on. */
  readonly match?: EnvMatchGameV1<S, A>;
}

export interface EnvMatchGameV1<S = unknown, A = unknown> {
  readonly model: GameModelV1<S, A>;
  /** The initial state of a game (chance nodes included). */
  readonly root: S;
  /** Names `mage solve` and `mage best-response` accept for this game (`kuhn`); absent: not offered to them. */
  readonly solveNames?: readonly string[];
  /** The exact value of the game for player 0, when known, shown beside the solver's (`−1/18`). */
  readonly value?: { readonly value: number; readonly text: string };
  /**
   * Env reward units per unit of the game model's returns under env `options` (Kuhn Poker: the reward per
   * chip), so reports can show returns in the game's unit beside exact best-response values.
   */
  rewardPerReturn?(options: Readonly<Record<string, unknown>>): number;
  /**
   * Whether, under env `options`, every attempt of a meta-episode is a fresh game of this match against the
   * same opponent (Kuhn Poker's `new-deal`): the setting in which reports show the adaptation ceiling.
   */
  freshGamePerAttempt?(options: Readonly<Record<string, unknown>>): boolean;
  /** A readable table of a strategy (information-state key → action key → probability). */
  strategyTable?(strategy: Readonly<Record<string, Readonly<Record<string, number>>>>): {
    readonly columns: readonly string[];
    readonly rows: readonly (readonly (string | number)[])[];
  };
}

export interface EnvWarmStartV1<S = unknown, A = unknown> {
  /**
   * A scripted, non-exploiting teacher: a `PolicyV1` that reads `request.facts` (the observation on play
   * turns, the finished attempt on reflect turns), answers play turns with `env.formatAction(…)` and reflect
   * turns with a `<remark>` note, and draws its randomness from `request.seed`.
   */
  teacher(env: EnvV1<S, A>, options: EnvTeacherOptionsV1): PolicyV1;
  /**
   * The whitespace-separated words of the env's compact text — rules (for every option value), observations,
   * events, actions, outcome labels — which the embedded model's word-level vocabulary must hold.
   */
  readonly words: readonly string[];
  /**
   * The teacher's revision: raise it when what the teacher plays or writes changes, so that warm starts
   * cached from the earlier teacher are not reused (it is part of the warm-start cache key). Absent: 1.
   */
  readonly revision?: number;
}

export interface EnvTeacherOptionsV1 {
  /** The run's prompt style; actions and notes follow it. Default `compact`. */
  readonly style?: PromptStyle;
  /** The config's `warmStart.noise`: the fraction of random moves, for teachers that take one. */
  readonly noise?: number;
  /** The config's `warmStart.mistakes`: the fraction of deliberate invalid moves (never trained on). */
  readonly mistakes?: number;
  /**
   * The config's `warmStart.adaptive`: the share of meta-episodes in which the teacher reads its notes
   * (`request.facts.earlier`), for teachers that can adapt.
   */
  readonly adaptive?: number;
}

export interface EnvLabelsV1 {
  /** Display name (`Kuhn Poker`). Default: the id. */
  readonly name?: string;
  /** What a success is (`win`, `room solved`). Default `success`. */
  readonly success?: string;
  /** The unit of the game model's returns (`chips per hand`). Default: reward units. */
  readonly returnUnit?: string;
}
