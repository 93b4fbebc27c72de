/**
 * What the learning commands (`pretrain`, `train`, `eval`, `experiment`) share: the env and seed flags,
 * the progress display, Ctrl-C handling and the per-iteration summary lines.
 */

import {
  AbortedError,
  ConfigError,
  type CreditDiagnosticsV1,
  type MetaEpisodeMetricsV1,
  type TrainingEvent,
} from '@mage-rl/core';
import { envRegistry, type TrainConfigInput } from '@mage-rl/recipes';
import type { Command } from 'commander';
import { createProgress, type Progress } from '../output/progress';
import type { Io } from '../program/error-boundary';

/** Help of `--env`: the ids of the env registry. */
export function envFlagHelp(): string {
  return `${envRegistry().ids.join(' | ')}, or the env of --env-package`;
}

/** Help of `--env-package`. */
export const ENV_PACKAGE_HELP =
  'add the env of a package: an npm name (resolved from the working directory) or a path, exporting an EnvDefinitionV1 as `envDefinition` or default';

/** Help of `--env-url`. */
export const ENV_URL_HELP =
  "play the env on a server (sets env.options.url): an AgentGym server for alfworld / webshop, or 'mage env-serve <env>' for the others";

/** `--env-url <url>` as a config override (`env.options.url`); nothing without it. */
export function envUrlOverride(url: string | undefined): TrainConfigInput {
  return url === undefined ? {} : { env: { options: { url } } };
}

/** `--env <id>` (default `tictactoe`) and `--env-package`, for commands that play one env. */
export function addEnvFlags(command: Command): Command {
  return command
    .option('--env <id>', envFlagHelp(), 'tictactoe')
    .option('--env-package <name-or-path>', ENV_PACKAGE_HELP);
}

/**
 * The env id a learning command uses: `--env` when typed, else the env of the env package, else the
 * default of `--env`.
 */
export function envFlag(command: Command, env: string, packageEnv: string | undefined): string {
  const typed = command.getOptionValueSource('env') !== 'default';
  return typed || packageEnv === undefined ? env : packageEnv;
}

/** The words the command line was called with after `mage`, quoted where they hold spaces. */
export const commandWords = (command: Command): string[] =>
  ((command.parent as { readonly rawArgs?: readonly string[] } | null)?.rawArgs ?? []).map((word) =>
    /\s/.test(word) ? `'${word}'` : word,
  );

/** A comma-separated list flag: trimmed, empty entries dropped. */
export const commaList = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `--seed`: a non-negative integer, or a `ConfigError`. */
export function seedOf(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new ConfigError(`--seed must be a non-negative integer, got '${value}'.`, { path: '--seed' });
  return n;
}

/** Bars on a terminal, plain lines on stderr otherwise, nothing at all with --json. */
export function progressFor(io: Io, json: boolean | undefined): Progress {
  return createProgress({
    interactive: !json && process.stderr.isTTY === true,
    write: json ? () => {} : io.stderr,
  });
}

/** Exit codes of a command stopped by a signal (128 + the signal's number, as shells report it). */
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * Runs `work` with a signal that Ctrl-C (SIGINT) or SIGTERM aborts; the handlers are removed when `work`
 * ends. When a signal stopped it, the error is an `AbortedError` that names the signal, adds what
 * `whatNow` says (where the work can be continued from) and carries the exit code 130 or 143.
 */
export async function withInterrupt<T>(
  work: (signal: AbortSignal) => Promise<T>,
  whatNow?: () => Promise<string>,
): Promise<T> {
  const controller = new AbortController();
  let received: StopSignal | null = null;
  const stop = (signal: StopSignal) => () => {
    received = signal;
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  const handlers = { SIGINT: stop('SIGINT'), SIGTERM: stop('SIGTERM') };
  for (const [signal, handler] of Object.entries(handlers)) process.once(signal, handler);
  try {
    return await work(controller.signal);
  } catch (error) {
    if (received === null) throw error;
    const hint = whatNow ? ` ${await whatNow()}` : '';
    throw new AbortedError(`interrupted by ${received}.${hint}`, {
      cause: error,
      context: { signal: received, exitCode: SIGNAL_EXIT_CODES[received] },
    });
  } finally {
    for (const [signal, handler] of Object.entries(handlers)) process.off(signal, handler);
  }
}

/** A rate as a percentage with one decimal: `41.2%`. */
export const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** One line of pass@k per attempt: `12.5% → 30.0% → 41.2%`. */
export function passLine(m: MetaEpisodeMetricsV1 | null | undefined): string {
  return m ? m.overall.perAttempt.map((a) => pct(a.passAtK.rate)).join(' → ') : 'n/a';
}

const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;

/** Where the credit went: truncations, mean advantage per attempt (moves / notes), reflection token share. */
export function creditLine(c: CreditDiagnosticsV1): string {
  const perAttempt = c.attempts
    .map(
      (a) =>
        `${a.attempt + 1}: ${signed(a.advantage.play.mean)}${a.advantage.reflect.n > 0 ? `/${signed(a.advantage.reflect.mean)}` : ''}`,
    )
    .join(' ');
  const invalid = c.invalid ? `invalid format ${pct(c.invalid.format)} / rule ${pct(c.invalid.rule)}, ` : '';
  return `credit: truncated ${pct(c.truncationRate)}, ${invalid}advantage by attempt (moves/notes) ${perAttempt}, note tokens ${pct(c.tokenShare.reflect)}, longest prompt ${c.longestPromptTokens}`;
}

/** The summary line of a training event (rollout, update, evaluation, checkpoint), or null for the others. */
export function iterationLine(event: TrainingEvent): string | null {
  switch (event.type) {
    case 'rollout-end':
      return `iter ${event.iteration}: rollout pass@k ${passLine(event.metrics)}, invalid ${pct(event.metrics.overall.invalidActionRate.rate)} (${event.timing.seconds.toFixed(1)} s)`;
    case 'update-end':
      return `iter ${event.iteration}: update loss ${event.loss?.toFixed(4) ?? 'n/a'}, kl ${event.kl?.toFixed(4) ?? 'n/a'}, entropy ${event.entropy.toFixed(3)}, ${Math.round(event.timing.tokensPerSecond)} tok/s${event.skippedSteps > 0 ? `, ${event.skippedSteps} NaN steps skipped` : ''}\n  ${creditLine(event.credit)}`;
    case 'eval-end':
      return `eval after ${event.completed} updates: in-domain ${passLine(event.inDomain)}; out-of-domain ${passLine(event.outOfDomain)} (${event.timing.seconds.toFixed(1)} s)`;
    case 'checkpoint-saved':
      return `checkpoint: ${event.dir}`;
    default:
      return null;
  }
}
