/**
 * Progress bars on an interactive terminal (cli-progress, on stderr), silent otherwise: commands also
 * print one summary line per iteration, so logs of non-interactive runs stay readable.
 */

import cliProgress from 'cli-progress';
import type { Io } from '../program/error-boundary';

export interface ProgressBar {
  update(value: number, payload?: Readonly<Record<string, string | number>>): void;
  setTotal(total: number): void;
}

export interface Progress {
  bar(label: string, total: number): ProgressBar;
  /** Prints a line above the bars (or plainly when there are none). */
  log(line: string): void;
  stop(): void;
}

/**
 * A duration for the bars (`ETA 1m05s`, `ETA 42s`, `ETA 2h03m`). cli-progress hands over its own markers
 * where it has no estimate yet (`'NULL'` before the first step, `'INF'` with no progress), which its
 * default formatter turned into `NFs`: those, and anything not a finite number, print as `--`.
 */
export function formatDuration(t: unknown): string {
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) return '--';
  const s = Math.round(t);
  const two = (n: number) => String(n).padStart(2, '0');
  if (s >= 3600) return `${Math.floor(s / 3600)}h${two(Math.floor((s % 3600) / 60))}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  return `${s}s`;
}

export function createProgress(options: { interactive: boolean; write: (text: string) => void }): Progress {
  if (!options.interactive) {
    return {
      bar: () => ({ update: () => {}, setTotal: () => {} }),
      log: (line) => options.write(`${line}\n`),
      stop: () => {},
    };
  }
  const multi = new cliProgress.MultiBar(
    {
      stream: process.stderr,
      format: '{label} [{bar}] {value}/{total} | ETA {eta_formatted} | {info}',
      barsize: 24,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 20,
      autopadding: true,
      formatTime: (t: unknown) => formatDuration(t),
    },
    cliProgress.Presets.shades_classic,
  );
  return {
    bar(label, total) {
      const b = multi.create(total, 0, { label: label.padEnd(10), info: '' });
      return {
        update: (value, payload) => b.update(value, payload ?? {}),
        setTotal: (t) => b.setTotal(t),
      };
    },
    log: (line) => multi.log(`${line}\n`),
    stop: () => multi.stop(),
  };
}

/** Bars on a terminal, plain lines on stderr otherwise, nothing at all with --json. */
export function progressFor(io: Io, json: boolean | undefined): Progress {
  return createProgress({
    interactive: !json && process.stderr.isTTY === true,
    write: json ? () => {} : io.stderr,
  });
}
