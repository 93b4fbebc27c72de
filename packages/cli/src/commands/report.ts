import { mkdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, IoError } from '@mage-rl/core';
import { readRun, skippedLinesWarning, writeReport } from '@mage-rl/trainer';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Io } from '../program/error-boundary';

export interface ReportJson {
  readonly outDir: string;
  readonly markdown: string;
  readonly images: readonly string[];
  readonly runs: readonly {
    readonly dir: string;
    readonly name: string;
    readonly updates: number;
    readonly evals: number;
  }[];
}

/** Help of `--out`, also the README's statement of what it does. */
export const REPORT_OUT_HELP =
  'directory to write the report into, created if missing (default: the first run directory); report.md, success-by-attempt, training-curves, credit and per-opponent .svg/.png in it are replaced, nothing else is touched';

/** The directory `--out` names (created when missing); a file there is a `ConfigError`. */
async function outDirOf(out: string | undefined, firstRun: string): Promise<string> {
  const outDir = resolve(out ?? firstRun);
  const info = await stat(outDir).catch(() => null);
  if (info !== null && !info.isDirectory()) {
    throw new ConfigError(
      `--out '${out ?? firstRun}' is a file; --out names a directory that report.md and the figures are written into. Pass a directory (it is created when missing).`,
      { path: '--out', context: { out: outDir } },
    );
  }
  try {
    await mkdir(outDir, { recursive: true });
  } catch (cause) {
    throw new IoError(`--out: could not create the directory '${outDir}': ${(cause as Error).message}`, {
      cause,
    });
  }
  return outDir;
}

/** `mage report <run-dir…> [--out dir]`: charts and report.md of one or more runs. */
export function reportCommand(program: Command, io: Io): void {
  program
    .command('report')
    .description(
      'write success-by-attempt and training curves (SVG + PNG) and report.md for one or more runs',
    )
    .argument(
      '<run-dirs...>',
      'run directories (with metrics.jsonl); several runs are compared in one report',
    )
    .option('--out <dir>', REPORT_OUT_HELP)
    .option('--json', 'print the written files as JSON')
    .action(async (dirs: string[], opts: { out?: string; json?: boolean }) => {
      const runs = await Promise.all(dirs.map((d) => readRun(resolve(d))));
      for (const run of runs) {
        const warning = skippedLinesWarning(run);
        if (warning) io.stderr(`mage: warning: ${warning}\n`);
      }
      const outDir = await outDirOf(opts.out, dirs[0] as string);
      const files = await writeReport(runs, outDir);
      const result: ReportJson = {
        outDir,
        markdown: files.markdown,
        images: files.images,
        runs: runs.map((r) => ({
          dir: r.dir,
          name: r.name,
          updates: r.updates.length,
          evals: r.evals.length,
        })),
      };
      if (opts.json) {
        printJson(io, result);
        return;
      }
      io.stdout(`report: ${files.markdown}\n`);
      for (const f of files.images.filter((p) => p.endsWith('.png'))) io.stdout(`figure: ${f}\n`);
    });
}
