/**
 * `mage dashboard [run-dirs...]`: a local web page with live training curves, episode replay and a play
 * page, until Ctrl-C or SIGTERM. Design: architecture/dashboard.md.
 */

import { resolve } from 'node:path';
import { ConfigError } from '@mage-rl/core';
import { exposureWarning } from '@mage-rl/core/http';
import { startDashboard } from '@mage-rl/dashboard';
import { envRegistry } from '@mage-rl/recipes';
import { playAgentOf } from '@mage-rl/trainer';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Io } from '../program/error-boundary';
import { allowedOrigins, allowOriginOption, listenFailure, untilStopped } from './serve';

interface DashboardFlags {
  readonly host: string;
  readonly port: string;
  readonly agent: string[];
  readonly allowOrigin: string[];
  readonly json?: boolean;
}

export function dashboardCommand(program: Command, io: Io): void {
  allowOriginOption(program.command('dashboard'), 'the dashboard API')
    .description(
      'a local web page: live training curves, episode replay, and play a game against an opponent',
    )
    .argument('[run-dirs...]', 'run directories to follow (several are overlaid); they may still be training')
    .option(
      '--host <host>',
      'address to bind (another than 127.0.0.1 exposes the page to the network)',
      '127.0.0.1',
    )
    .option('--port <n>', 'port (0 picks a free one)', '8080')
    .option(
      '--agent <run-dir>',
      'a trained run a person can play against on the play page (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--json', 'print the address and the runs as JSON once listening')
    .action(async (runDirs: string[], opts: DashboardFlags) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new ConfigError(`--port must be an integer from 0 to 65535, got '${opts.port}'.`, {
          path: '--port',
        });
      }
      const games = envRegistry().definitions.filter((d) => d.opponents?.match);
      const loaded: Awaited<ReturnType<typeof playAgentOf>>[] = [];
      try {
        for (const dir of opts.agent) loaded.push(await playAgentOf(dir));
        const agents = loaded.map((l) => l.agent);
        const http = { allowOrigins: allowedOrigins(opts.allowOrigin) };
        const dashboard = await startDashboard({ runDirs, host: opts.host, port, games, agents, http }).catch(
          (error: unknown) => {
            throw listenFailure(opts.host, port, error);
          },
        );
        const warning = exposureWarning('mage dashboard', opts.host, false);
        if (warning) io.stderr(`${warning}\n`);
        if (opts.json) printJson(io, { url: dashboard.url, runs: runDirs.map((dir) => resolve(dir)) });
        else io.stdout(`Dashboard of ${runDirs.length} run(s) at ${dashboard.url} (Ctrl-C stops)\n`);
        const signal = await untilStopped();
        await dashboard.close();
        if (!opts.json) io.stdout(`Stopped by ${signal}.\n`);
      } finally {
        for (const l of loaded) await l.dispose();
      }
    });
}
