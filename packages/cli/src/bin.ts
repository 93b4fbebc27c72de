#!/usr/bin/env node
import { runCli } from './program/program';

// A reader that stops early (`mage solve kuhn | head`) closes the pipe: end quietly, as other tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

const code = await runCli(process.argv.slice(2));
// A failed command exits now: whatever it had started (a server's timers, a model's worker thread) must not
// keep the process alive after its message. A successful one ends when its work does.
if (code !== 0) process.exit(code);
