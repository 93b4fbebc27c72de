/** `mage serve <run-or-model-dir>`: an OpenAI-compatible HTTP server until Ctrl-C or SIGTERM. */

import { basename, resolve } from 'node:path';
import { ConfigError } from '@mage-rl/core';
import { exposureWarning } from '@mage-rl/core/http';
import {
  DEFAULT_ENGINE_LIMITS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_REQUESTS,
  DEFAULT_SERVE_LIMITS,
  serveModel,
} from '@mage-rl/serve';
import { modelSourceOf } from '@mage-rl/trainer';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Io } from '../program/error-boundary';
import { positiveInt } from './game-options';

interface ServeFlags {
  readonly host: string;
  readonly port: string;
  readonly apiKey?: string;
  readonly apiKeyEnv?: string;
  readonly adapterDir?: string;
  readonly allowOrigin: string[];
  readonly servedModelName?: string;
  readonly maxTokens: string;
  readonly maxBatchRows: string;
  readonly maxQueuedRows: string;
  readonly maxConcurrentRequests: string;
  readonly maxBodyBytes: string;
  readonly batchWaitMs: string;
  readonly lora: string[];
  readonly json?: boolean;
}

/** `name=path` pairs of `--lora`. */
function loraPairs(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const at = v.indexOf('=');
    if (at <= 0 || at === v.length - 1)
      throw new ConfigError(`--lora '${v}' must be name=path (a PEFT adapter directory).`, {
        path: '--lora',
      });
    out[v.slice(0, at)] = v.slice(at + 1);
  }
  return out;
}

const repeat = (v: string, acc: string[]) => [...acc, v];

/** Adds `--allow-origin <origin>` (repeatable) to a server command; `what` is what pages may call. */
export function allowOriginOption(command: Command, what: string): Command {
  return command.option(
    '--allow-origin <origin>',
    `a web origin whose pages may call ${what} (repeatable)`,
    repeat,
    [] as string[],
  );
}

/** `--allow-origin` values: whole origins such as `http://localhost:3000`. */
export function allowedOrigins(values: readonly string[]): string[] {
  for (const v of values) {
    if (!/^https?:\/\/[^/\s]+\/?$/.test(v))
      throw new ConfigError(`--allow-origin '${v}' must be an origin such as http://localhost:3000.`, {
        path: '--allow-origin',
      });
  }
  return [...values];
}

/** The API key: `--api-key`, else the variable `--api-key-env` names, else `MAGE_API_KEY`. */
function apiKeyOf(opts: ServeFlags): string | undefined {
  if (opts.apiKey) return opts.apiKey;
  const name = opts.apiKeyEnv ?? 'MAGE_API_KEY';
  const key = process.env[name];
  if (opts.apiKeyEnv !== undefined && !key)
    throw new ConfigError(`--api-key-env ${name}: the variable is unset or empty.`, {
      path: '--api-key-env',
    });
  return key || undefined;
}

/**
 * What a server command throws when it cannot listen: the address is taken (`EADDRINUSE`), not allowed
 * (`EACCES`) or not this machine's (`EADDRNOTAVAIL`). A `ConfigError` naming the flag to change, so the
 * error boundary prints one line and the command exits 1 at once; any other error passes unchanged.
 */
export function listenFailure(host: string, port: number, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') return error;
  const why =
    code === 'EADDRINUSE' ? 'the port is in use' : code === 'EACCES' ? 'not allowed' : 'no such address here';
  return new ConfigError(
    `cannot listen on ${host}:${port} (${code}: ${why}); choose another --port or --host.`,
    { path: '--port', cause: error },
  );
}

/** Resolves on the first SIGINT or SIGTERM (handlers removed after). */
export function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(signal);
    };
    const onInt = stop('SIGINT');
    const onTerm = stop('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}

export function serveCommand(program: Command, io: Io): void {
  allowOriginOption(program.command('serve'), 'the API')
    .description('serve a run or model over an OpenAI-compatible HTTP API (chat, completions, LoRA adapters)')
    .argument('<dir>', 'a run directory (latest checkpoint) or a model directory (mage-tiny or Hugging Face)')
    .option(
      '--host <host>',
      'address to bind (another than 127.0.0.1 exposes the server to the network)',
      '127.0.0.1',
    )
    .option('--port <n>', 'port (0 picks a free one)', '8000')
    .option(
      '--api-key <key>',
      'require Authorization: Bearer <key> on every request (visible in ps: prefer --api-key-env)',
    )
    .option('--api-key-env <name>', 'read the API key from this environment variable (default MAGE_API_KEY)')
    .option(
      '--adapter-dir <dir>',
      'the only directory under which POST /v1/load_lora_adapter may read adapters',
    )
    .option('--served-model-name <name>', 'the model name clients pass (default: the directory name)')
    .option(
      '--max-tokens <n>',
      'largest max_tokens a request may ask for',
      String(DEFAULT_SERVE_LIMITS.maxTokens),
    )
    .option(
      '--max-batch-rows <n>',
      'sequences decoded together at most',
      String(DEFAULT_ENGINE_LIMITS.maxBatchRows),
    )
    .option(
      '--max-queued-rows <n>',
      'sequences waiting or running at most (more: 429)',
      String(DEFAULT_ENGINE_LIMITS.maxQueuedRows),
    )
    .option(
      '--max-concurrent-requests <n>',
      'requests handled at once at most (more: 429)',
      String(DEFAULT_MAX_CONCURRENT_REQUESTS),
    )
    .option('--max-body-bytes <n>', 'largest request body (more: 413)', String(DEFAULT_MAX_BODY_BYTES))
    .option(
      '--batch-wait-ms <n>',
      'how long an idle server waits for more requests to batch',
      String(DEFAULT_ENGINE_LIMITS.batchWaitMs),
    )
    .option('--lora <name=path>', 'load a PEFT LoRA adapter at start (repeatable)', repeat, [] as string[])
    .option('--json', 'print the address and the model name as JSON once listening')
    .action(async (dir: string, opts: ServeFlags) => {
      const apiKey = apiKeyOf(opts);
      const batchWaitMs = Number(opts.batchWaitMs);
      if (!Number.isFinite(batchWaitMs) || batchWaitMs < 0 || batchWaitMs > 1000)
        throw new ConfigError(`--batch-wait-ms must be between 0 and 1000, got '${opts.batchWaitMs}'.`, {
          path: '--batch-wait-ms',
        });
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new ConfigError(`--port must be an integer from 0 to 65535, got '${opts.port}'.`, {
          path: '--port',
        });
      // The name clients pass as `model`: the directory's name unless given.
      const model = opts.servedModelName ?? basename(resolve(dir));
      const server = await serveModel({
        source: await modelSourceOf(dir),
        name: model,
        host: opts.host,
        port,
        ...(apiKey ? { apiKey } : {}),
        maxBodyBytes: positiveInt(opts.maxBodyBytes, '--max-body-bytes', 1 << 30),
        maxConcurrentRequests: positiveInt(opts.maxConcurrentRequests, '--max-concurrent-requests', 100_000),
        engine: {
          maxBatchRows: positiveInt(opts.maxBatchRows, '--max-batch-rows', 256),
          maxQueuedRows: positiveInt(opts.maxQueuedRows, '--max-queued-rows', 1_000_000),
          batchWaitMs,
        },
        limits: { maxTokens: positiveInt(opts.maxTokens, '--max-tokens', 1_000_000) },
        loras: loraPairs(opts.lora),
        access: {
          ...(opts.adapterDir ? { adapterDir: opts.adapterDir } : {}),
          http: { allowOrigins: allowedOrigins(opts.allowOrigin) },
        },
      }).catch((error: unknown) => {
        throw listenFailure(opts.host, port, error);
      });
      const warning = exposureWarning('mage serve', opts.host, apiKey !== undefined);
      if (warning) io.stderr(`${warning}\n`);
      if (opts.json) printJson(io, { url: server.url, port: server.port, model, dir: resolve(dir) });
      else
        io.stdout(
          `Serving ${dir} as model '${model}' at ${server.url} (pass model: '${model}'; Ctrl-C stops)\n`,
        );
      const signal = await untilStopped();
      await server.close();
      if (!opts.json) io.stdout(`Stopped by ${signal}.\n`);
    });
}
