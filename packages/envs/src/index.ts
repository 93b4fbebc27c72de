import { DOORS_ENV_ID } from './doors/env';
import { KUHN_ENV_ID } from './kuhn-poker/env';
import { RPS_ENV_ID } from './rps/env';
import { SOKOBAN_ENV_ID } from './sokoban/env';
import { TICTACTOE_ENV_ID, TICTACTOE_FROZEN_ENV_ID } from './tictactoe/env';
import { TREASURE_ENV_ID } from './treasure/env';

export * from './doors';
export * from './hidden-target';
export * from './kuhn-poker';
export * from './rps';
export * from './sokoban';
export * from './tictactoe';
export * from './treasure';

/** Ids of the environments of this package, in a stable order. */
export const ENV_IDS = [
  TICTACTOE_ENV_ID,
  KUHN_ENV_ID,
  SOKOBAN_ENV_ID,
  TREASURE_ENV_ID,
  DOORS_ENV_ID,
  RPS_ENV_ID,
  TICTACTOE_FROZEN_ENV_ID,
] as const;
export type EnvId = (typeof ENV_IDS)[number];
