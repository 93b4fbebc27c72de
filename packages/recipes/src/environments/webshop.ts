/** WebShop on an AgentGym server: trained on goals 500 and up, evaluated on goals 0–499. */

import { createWebShop, WEBSHOP_ENV_ID, type WebShopState } from '@mage-rl/env-remote';
import { serverEnvDefinition } from './server-env';

export const webShopEnvDefinition = serverEnvDefinition<WebShopState>({
  id: WEBSHOP_ENV_ID,
  description: 'WebShop shopping goals on an AgentGym server (--env-url; single agent)',
  create: (options) => createWebShop(options),
  historyWindow: 20,
  labels: { name: 'WebShop', success: 'exact purchase' },
});
