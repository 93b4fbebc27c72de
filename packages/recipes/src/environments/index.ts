export { alfWorldEnvDefinition } from './alfworld';
export { checkEnvDefinition } from './check-definition';
export { doorsEnvDefinition } from './doors';
export {
  type EnvPackageUse,
  loadEnvPackage,
  recordedEnvPackage,
  resolveEnvPackage,
  useEnvPackage,
} from './env-package';
export { kuhnPokerEnvDefinition } from './kuhn-poker';
export {
  addEnvDefinition,
  type EnvRegistry,
  envDefinition,
  envRegistry,
  FIRST_PARTY_ENV_DEFINITIONS,
  REMOTE_ENV_IDS,
} from './registry';
export { rpsEnvDefinition } from './rps';
export { sokobanEnvDefinition } from './sokoban';
export { ticTacToeEnvDefinition } from './tictactoe';
export { ticTacToeFrozenEnvDefinition } from './tictactoe-frozen';
export { treasureEnvDefinition } from './treasure';
export { webShopEnvDefinition } from './webshop';
