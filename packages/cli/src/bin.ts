#!/usr/bin/env node
import { runCli } from './program/program';

// A reader that stops early (`mage solve kuhn | head`) closes the pipe: end quietly, as other tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

process.exitCode = await runCli(process.argv.slice(2));
