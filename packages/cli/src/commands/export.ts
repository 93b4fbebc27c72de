/** `mage export <run-or-model-dir> --format hf|onnx --out <dir> [--adapter]`. */

import { EXPORT_FORMATS, exportModel } from '@mage-rl/learner';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Io } from '../program/error-boundary';
import { oneOf } from './game-options';

interface ExportFlags {
  readonly format: string;
  readonly out: string;
  readonly adapter?: boolean;
  readonly json?: boolean;
}

export function exportCommand(program: Command, io: Io): void {
  program
    .command('export')
    .description(
      'write a run or model as a Hugging Face directory (hf), a transformers.js directory (onnx) or a PEFT adapter',
    )
    .argument('<dir>', 'a run directory (latest checkpoint) or a model directory (mage-tiny or Hugging Face)')
    .option('--format <format>', `${EXPORT_FORMATS.join(' | ')}`, 'hf')
    .requiredOption('--out <dir>', 'the directory to write (replaced atomically)')
    .option('--adapter', 'write the LoRA adapter alone (PEFT layout) instead of merged weights')
    .option('--json', 'print JSON')
    .action(async (dir: string, opts: ExportFlags) => {
      const format = oneOf(opts.format, '--format', EXPORT_FORMATS);
      const result = await exportModel({
        source: dir,
        out: opts.out,
        format,
        adapter: opts.adapter === true,
      });
      if (opts.json) {
        printJson(io, result);
        return;
      }
      io.stdout(
        `Wrote ${result.format} export of ${result.modelDir}${result.checkpointDir ? ` (checkpoint ${result.checkpointDir})` : ''} to ${result.out}: ${result.files.join(', ')} (${result.parameters.toLocaleString('en-US')} parameters)\n`,
      );
    });
}
