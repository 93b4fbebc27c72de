import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Io } from '../program/error-boundary';
import { readRun, writeReport } from '../report/run-report';

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
    .option('--out <dir>', 'where to write the report (default: the first run directory)')
    .option('--json', 'print the written files as JSON')
    .action(async (dirs: string[], opts: { out?: string; json?: boolean }) => {
      const runs = await Promise.all(dirs.map((d) => readRun(resolve(d))));
      const outDir = resolve(opts.out ?? (dirs[0] as string));
      await mkdir(outDir, { recursive: true });
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
