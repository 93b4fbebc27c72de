import { KUHN_ENV_ID } from './kuhn-poker/env';
import { SOKOBAN_ENV_ID } from './sokoban/env';
import { TICTACTOE_ENV_ID } from './tictactoe/env';

export * from './kuhn-poker';
export * from './sokoban';
export * from './tictactoe';

/** Ids of the environments of this package, in a stable order. */
export const ENV_IDS = [TICTACTOE_ENV_ID, KUHN_ENV_ID, SOKOBAN_ENV_ID] as const;
export type EnvId = (typeof ENV_IDS)[number];
