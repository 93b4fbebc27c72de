/**
 * Test fixture: plays Sokoban on the `mage env-serve`-style server at argv[2] (one reset, so the server
 * holds one instance for this process), prints `ready`, then either exits (`exit`) or waits for a signal
 * (`wait`) without handling it itself.
 */

import { createRng } from '@mage-rl/core';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createServedEnv } from '../envs/served';

const [url, mode] = process.argv.slice(2);
if (!url) throw new Error('usage: hold-instance <url> exit|wait');
const env = createServedEnv(createSokoban({}), {
  url,
  timeoutMs: 5_000,
  retries: 0,
  retryDelayMs: 10,
  maxInstances: 4,
});
env.createEpisode({ seed: 3, seat: 'first', style: 'compact', rng: createRng(3) }).reset(0);
process.stdout.write('ready\n');
if (mode === 'exit') process.exit(0);
setInterval(() => {}, 1000);
