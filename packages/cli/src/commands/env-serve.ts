/**
 * `mage env-serve <env>`: one of mage-rl's in-process envs served over HTTP in the WebShop dialect, so
 * that a run elsewhere plays it with `--env <env> --env-url http://host:port` (see
 * architecture/envs.md, "Remote envs"), or with `--protocol openenv` in OpenEnv's, so that any OpenEnv
 * client plays it (architecture/env-remote.md). The task seed is `session_id` (OpenEnv: `seed`).
 */

import { ConfigError, type PopulationEntry, PROMPT_STYLES, type PromptStyle, type Seat } from '@mage-rl/core';
import { exposureWarning } from '@mage-rl/core/http';
import { type RunningEnvServer, startEnvServer } from '@mage-rl/env-remote';
import {
  envDefinition,
  populationOf,
  REMOTE_ENV_IDS,
  resolveTrainConfig,
  useEnvPackage,
} from '@mage-rl/recipes';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Io } from '../program/error-boundary';
import { oneOf, positiveInt } from './game-options';
import { ENV_PACKAGE_HELP, envFlagHelp } from './learning-flags';
import { allowedOrigins, allowOriginOption, listenFailure } from './serve';
import { envOptionsOf } from './train-overrides';

interface ServeFlags {
  readonly port: string;
  readonly protocol?: string;
  readonly host: string;
  readonly opponent?: string;
  readonly seat: string;
  readonly style: string;
  readonly option?: readonly string[];
  readonly envPackage?: string;
  readonly maxInstances: string;
  readonly maxBodyBytes: string;
  readonly maxConcurrent: string;
  readonly instanceTtl?: string;
  readonly allowOrigin?: readonly string[];
  readonly json?: boolean;
}

export function envServeCommand(program: Command, io: Io): void {
  allowOriginOption(program.command('env-serve'), 'the server')
    .description(
      'serve an env over HTTP (WebShop dialect, or OpenEnv) for runs elsewhere: mage train --env <env> --env-url <url>',
    )
    .argument('<env>', envFlagHelp('in-process'))
    .option(
      '--protocol <name>',
      "webshop (AgentGym's WebShop dialect; mage clients) or openenv (OpenEnv's routes and WebSocket sessions, textarena_env's fields)",
      'webshop',
    )
    .option('--port <n>', 'port (0: any free port, printed)', '36005')
    .option(
      '--host <address>',
      'address to listen on (0.0.0.0 exposes it to the network: no authentication)',
      '127.0.0.1',
    )
    .option(
      '--opponent <id>',
      "opponent when a reset names none (default: one drawn per task seed from the env's default training population)",
    )
    .option('--seat <seat>', 'agent seat when a request names none: first | second', 'first')
    .option(
      '--style <style>',
      `prompt style when a request names none: ${PROMPT_STYLES.join(' | ')}`,
      'verbose',
    )
    .option(
      '--option <key=value...>',
      'env option when a request sends none: --option boxes=3 (value parsed as JSON)',
    )
    .option('--env-package <name-or-path>', ENV_PACKAGE_HELP)
    .option('--max-instances <n>', 'live instances at most (openenv: WebSocket sessions)', '1024')
    .option('--max-body-bytes <n>', 'largest request body', '65536')
    .option('--max-concurrent <n>', 'requests handled at once', '64')
    .option('--instance-ttl <s>', 'seconds an untouched instance (openenv: session) lives', '1800')
    .option('--json', 'print the address as JSON')
    .action(async (env: string, opts: ServeFlags) => {
      const abort = new AbortController();
      let signalName = '';
      const stopBy = (signal: string) => () => {
        signalName = signal;
        abort.abort();
      };
      const onInt = stopBy('SIGINT');
      const onTerm = stopBy('SIGTERM');
      process.once('SIGINT', onInt);
      process.once('SIGTERM', onTerm);
      try {
        await serveEnv(env, opts, io, abort.signal);
        if (signalName !== '') io.stderr(`mage env-serve: stopped by ${signalName}.\n`);
      } finally {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      }
    });
}

/** Starts the server, reports its address, and serves until `signal` aborts. */
export async function serveEnv(envId: string, opts: ServeFlags, io: Io, signal: AbortSignal): Promise<void> {
  await useEnvPackage(opts.envPackage, {});
  const definition = envDefinition(envId);
  if (REMOTE_ENV_IDS.includes(definition.id)) {
    throw new ConfigError(
      `'${definition.id}' already runs on a server of its own; mage env-serve serves in-process envs.`,
      {
        path: 'env',
      },
    );
  }
  const options = envOptionsOf(opts.option);
  const protocol = oneOf(opts.protocol ?? 'webshop', '--protocol', ['webshop', 'openenv'] as const);
  definition.create(options); // a bad --option fails here, before the server starts
  const opponents = definition.opponents;
  if (opts.opponent !== undefined) opponents?.create(opts.opponent);
  if (opts.opponent !== undefined && !opponents) {
    throw new ConfigError(`--opponent: env '${definition.id}' has no opponents.`, { path: '--opponent' });
  }
  // Without --opponent, a reset that names none plays against the population training uses by default.
  const population = opponents && opts.opponent === undefined ? defaultPopulation(definition.id) : undefined;
  const running = await listen(opts, () => ({
    envId: definition.id,
    protocol,
    description: definition.description,
    createEnv: (o: Readonly<Record<string, unknown>>) => definition.create(o),
    defaultOptions: options,
    ...(opponents ? { createOpponent: (id: string) => opponents.create(id) } : {}),
    ...(opts.opponent !== undefined ? { defaultOpponent: opts.opponent } : {}),
    ...(population ? { defaultPopulation: population } : {}),
    defaultSeat: oneOf(opts.seat, '--seat', ['first', 'second'] as Seat[]),
    defaultStyle: oneOf(opts.style, '--style', PROMPT_STYLES as PromptStyle[]),
    maxInstances: positiveInt(opts.maxInstances, '--max-instances', 1_000_000),
    maxBodyBytes: positiveInt(opts.maxBodyBytes, '--max-body-bytes', 64 * 1024 * 1024),
    maxConcurrent: positiveInt(opts.maxConcurrent, '--max-concurrent', 100_000),
    instanceTtlMs: positiveInt(opts.instanceTtl ?? '1800', '--instance-ttl', 30 * 86_400) * 1000,
    http: { allowOrigins: allowedOrigins(opts.allowOrigin ?? []) },
    log: (line: string) => io.stderr(`mage env-serve: ${line}\n`),
  }));
  const warning = exposureWarning('mage env-serve', opts.host, false);
  if (warning) io.stderr(`${warning}\n`);
  const opponent = opts.opponent ?? null;
  const populationName = population?.name ?? null;
  if (opts.json) {
    const { url, port } = running;
    printJson(io, { env: definition.id, url, port, protocol, opponent, population: populationName });
  } else {
    const speaks = protocol === 'openenv' ? 'OpenEnv, sessions on /ws' : 'WebShop dialect';
    const against =
      opponent !== null
        ? `; opponent ${opponent}`
        : populationName !== null
          ? `; opponents drawn per seed from ${populationName}`
          : '';
    io.stdout(`mage env-serve: ${definition.id} at ${running.url} (${speaks}${against}; Ctrl-C stops)\n`);
  }
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await running.close();
}

/** The env's default training population (`balanced` …) by name, as `mage train` would use it. */
function defaultPopulation(envId: string): { name: string; entries: readonly PopulationEntry[] } | undefined {
  const config = resolveTrainConfig({}, { env: envId });
  const population = populationOf(config);
  return population ? { name: config.population.preset, entries: population.entries } : undefined;
}

async function listen(
  opts: ServeFlags,
  serverOptions: () => Parameters<typeof startEnvServer>[0],
): Promise<RunningEnvServer> {
  const port = Number(opts.port);
  if (!/^\d+$/.test(opts.port) || port > 65_535) {
    throw new ConfigError(`--port must be an integer in 0..65535, got '${opts.port}'.`, { path: '--port' });
  }
  return startEnvServer(serverOptions(), { host: opts.host, port }).catch((error: unknown) => {
    throw listenFailure(opts.host, port, error);
  });
}
