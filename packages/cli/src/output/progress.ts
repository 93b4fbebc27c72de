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
