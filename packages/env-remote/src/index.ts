/**
 * Environments over HTTP: AgentGym's ALFWorld and WebShop servers as `EnvV1`s, mage-rl's own envs played
 * on a `mage env-serve` server, and that server.
 */

export { AlfWorldDialect, alfWorldResetSchema, alfWorldStepSchema } from './dialects/alfworld';
export { OpenEnvDialect, type OpenEnvFields, type OpenEnvView } from './dialects/openenv';
export {
  WebShopDialect,
  webShopActionsSchema,
  webShopResetSchema,
  webShopStepSchema,
} from './dialects/webshop';
export {
  ALFWORLD_ENV_ID,
  ALFWORLD_OUTCOMES,
  type AlfWorldOptions,
  type AlfWorldState,
  alfWorldOptionsSchema,
  alfWorldRules,
  createAlfWorld,
  renderAlfWorld,
} from './envs/alfworld';
export {
  createOpenEnv,
  OPENENV_ENV_ID,
  OPENENV_OUTCOMES,
  type OpenEnvOptions,
  type OpenEnvState,
  openEnvOptionsSchema,
  openEnvRules,
  parseOpenEnvAction,
} from './envs/openenv';
export { type RemoteStateBase, remoteGameModel } from './envs/remote-game';
export { createServedEnv } from './envs/served';
export {
  createWebShop,
  parseWebShopAction,
  renderWebShop,
  renderWebShopPage,
  WEBSHOP_ENV_ID,
  WEBSHOP_OUTCOMES,
  type WebShopOptions,
  type WebShopState,
  webShopActions,
  webShopInstruction,
  webShopOptionsSchema,
  webShopRules,
} from './envs/webshop';
export { RemoteEnvError } from './errors';
export { JsonClient, type RetryPolicy } from './http/json-client';
export { closeRemoteEnvs } from './lifecycle';
export {
  OPENENV_ERROR_CODES,
  type OpenEnvErrorCode,
  openEnvClientMessage,
  openEnvResult,
  openEnvServerMessage,
  openEnvSocketUrl,
  textArenaAction,
  textArenaObservation,
  textArenaState,
} from './openenv/protocol';
export {
  type RemoteConnectionOptions,
  remoteConnectionShape,
  splitConnectionOptions,
  validateRemoteOptions,
} from './options';
export {
  createEnvServer,
  type EnvServerOptions,
  type RunningEnvServer,
  startEnvServer,
} from './server/env-server';
export { opponentForSeed, type ResetChoice } from './server/env-service';
