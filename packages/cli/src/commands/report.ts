import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, IoError, pathExists } from '@mage-rl/core';
import { readRun, reportExperiment, skippedLinesWarning, writeReport } from '@mage-rl/trainer';
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

/**
 * `mage report <experiment-dir>`: results.json, report.md and the charts of an experiment directory (one
 * holding experiment.json), rewritten in it as `mage experiment --report-only` does.
 */
async function reportExperimentDir(
  dir: string,
  opts: { out?: string; json?: boolean },
  io: Io,
): Promise<void> {
  const outDir = resolve(dir);
  if (opts.out !== undefined && resolve(opts.out) !== outDir) {
    throw new ConfigError(
      `--out '${opts.out}': '${dir}' is an experiment directory, whose report is written into it (results.json and report.md beside its evaluations); leave out --out.`,
      { path: '--out', context: { dir: outDir } },
    );
  }
  const files = await reportExperiment(outDir);
  if (opts.json) {
    printJson(io, { outDir, experiment: true, ...files });
    return;
  }
  io.stdout(`results: ${files.results}\nreport: ${files.markdown}\n`);
}

/** `mage report <run-dir…> [--out dir]`: charts and report.md of one or more runs. */
export function reportCommand(program: Command, io: Io): void {
  program
    .command('report')
    .description(
      'write success-by-attempt and training curves (SVG + PNG) and report.md for one or more runs, or the report of an experiment directory',
    )
    .argument(
      '<run-dirs...>',
      'run directories (with metrics.jsonl); several runs are compared in one report. One experiment directory (with experiment.json): its results.json and report.md are rewritten',
    )
    .option('--out <dir>', REPORT_OUT_HELP)
    .option('--json', 'print the written files as JSON')
    .action(async (dirs: string[], opts: { out?: string; json?: boolean }) => {
      const [first] = dirs;
      if (dirs.length === 1 && first !== undefined && (await pathExists(join(first, 'experiment.json')))) {
        await reportExperimentDir(first, opts, io);
        return;
      }
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
