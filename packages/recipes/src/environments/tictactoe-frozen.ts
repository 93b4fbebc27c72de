/**
 * Tic-Tac-Toe against a frozen opponent as the trainer knows it (`tictactoe-frozen`): MCTS-100 answering
 * each board the same way for the whole meta-episode (`replies: 'board'`), the agent first, every attempt
 * played and scored, each finished attempt revealing the agent's own moves (`reveal: 'line'`), so a note
 * can state a won line and a reader can replay it. Memoryless minimax wins about half the attempts; the
 * reader that replays a won line 0.47 → 0.71 → 0.82 (its pass@k is the adaptation ceiling, estimated).
 * Training credit and KL are the hidden-target ones; the teacher is note-blind minimax
 * (`ticTacToeFrozenTeacher`); evaluation plays MCTS-100 in-domain and MCTS-1000 out-of-domain, both frozen.
 * Its recipe is the `reading` run preset.
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import { createRng } from '@mage-rl/core';
import {
  createFrozenTicTacToe,
  initialTicTacToeState,
  TICTACTOE_FROZEN_ENV_ID,
  type TicTacToeAction,
  type TicTacToeOptions,
  type TicTacToeState,
  ticTacToeGame,
} from '@mage-rl/envs/tictactoe';
import { frozenTicTacToeLevels, mctsOpponent, ticTacToeOpponentRegistry } from '@mage-rl/opponents';
import type { TrainConfigInput } from '../presets/schema';
import { ticTacToeFrozenTeacher } from '../teachers/tictactoe-frozen-teacher';
import { HIDDEN_TARGET_DEFAULTS } from './hidden-target-defaults';
import { ticTacToeEnvDefinition } from './tictactoe';

const populations = {
  balanced: [{ id: 'mcts-100', weight: 1 }],
  ood: [{ id: 'mcts-1000', weight: 1 }],
};

/** Meta-episodes of the ceiling's estimate (about 3 s per 1000 of MCTS-100). */
const CEILING_META_EPISODES = 1000;

/** pass@k of the reader that replays a won line, first to move against MCTS-100, on task seeds 0…999. */
function replayPassAtK(options: Readonly<Record<string, unknown>>, attempts: number): readonly number[] {
  // The env validates the options (a ConfigError names a bad one); the estimate is for 3×3.
  if (createFrozenTicTacToe(options as TicTacToeOptions).options.size !== 3) return [];
  const levels = frozenTicTacToeLevels({
    opponent: () => mctsOpponent({ simulations: 100 }),
    seat: 'first',
    metaEpisodes: CEILING_META_EPISODES,
    attempts,
    rngOf: createRng,
  });
  return levels.players.replay.passes.map((n) => n / CEILING_META_EPISODES);
}

export const ticTacToeFrozenEnvDefinition: EnvDefinitionV1<TicTacToeState, TicTacToeAction> = {
  specificationVersion: 'v1',
  id: TICTACTOE_FROZEN_ENV_ID,
  description:
    'Tic-Tac-Toe against a frozen MCTS-100 (the same reply to a board every attempt): replay a won line',
  create: (options) => createFrozenTicTacToe(options as TicTacToeOptions),
  defaults: {
    // A game stopped by the turn limit scores as a loss, as in Tic-Tac-Toe.
    env: { options: { truncation: 'loss' } },
    // Replaying a line is reading a hidden target: the same credit and KL settings, the agent first.
    ...HIDDEN_TARGET_DEFAULTS,
    // Tic-Tac-Toe's cost of an invalid move (half a loss), on the episode score and the step value.
    advantage: { ...HIDDEN_TARGET_DEFAULTS.advantage, invalidPenalty: 5, penaltyScope: 'episode-and-step' },
    population: { preset: 'balanced', fixedOpponent: null, mode: 'sampled' },
    // Every attempt is played and scored, in training, in the warm start's corpus and in evaluation: a
    // won line is worth replaying, and an attempt after a win shows whether it was.
    rollout: { ...HIDDEN_TARGET_DEFAULTS.rollout, earlyStop: false },
    warmStart: { earlyStop: false },
    eval: {
      inDomain: ['mcts-100'],
      outOfDomain: ['mcts-1000'],
      envOptions: {},
      outOfDomainEnvOptions: [],
      earlyStop: false,
    },
  } satisfies TrainConfigInput,
  opponents: {
    ...ticTacToeOpponentRegistry(),
    populations,
    match: { model: ticTacToeGame(3), root: initialTicTacToeState(3) },
  },
  warmStart: {
    teacher: ticTacToeFrozenTeacher,
    words: ticTacToeEnvDefinition.warmStart?.words ?? [],
  },
  recipe: { preset: 'reading', results: 'docs/results/tictactoe-frozen' },
  adaptationCeiling: replayPassAtK,
  labels: { name: 'Tic-Tac-Toe, frozen opponent', success: 'win' },
};
