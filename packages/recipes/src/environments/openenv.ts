/**
 * Any text environment on an OpenEnv server (meta-pytorch/OpenEnv): trained on reset seeds 1,000,000 and
 * up, evaluated on seeds below; the memory's default history window.
 */

import { createOpenEnv, OPENENV_ENV_ID, type OpenEnvState } from '@mage-rl/env-remote';
import { serverEnvDefinition } from './server-env';

export const openEnvEnvDefinition = serverEnvDefinition<OpenEnvState>({
  id: OPENENV_ENV_ID,
  description: 'any text environment on an OpenEnv server (--env-url; single agent)',
  create: (options) => createOpenEnv(options),
  labels: { name: 'OpenEnv', success: 'reward above successAbove' },
});
