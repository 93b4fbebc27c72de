/** ALFWorld on an AgentGym server: trained on the server's train games, evaluated on its in-domain test games. */

import { ALFWORLD_ENV_ID, type AlfWorldState, createAlfWorld } from '@mage-rl/env-remote';
import { serverEnvDefinition } from './server-env';

export const alfWorldEnvDefinition = serverEnvDefinition<AlfWorldState>({
  id: ALFWORLD_ENV_ID,
  description: 'ALFWorld household tasks on an AgentGym server (--env-url; single agent)',
  create: (options) => createAlfWorld(options),
  historyWindow: 15,
  labels: { name: 'ALFWorld', success: 'task won' },
});
