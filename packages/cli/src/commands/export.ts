/**
 * `mage export <run-or-model-dir> --format hf|onnx --out <dir> [--adapter] [--max-shard-size 5GB]
 * [--dtype f32|bf16|f16]`.
 */

import { EXPORT_FORMATS, exportModel, parseByteSize, type WritableDType } from '@mage-rl/learner';
import { modelSourceOf } from '@mage-rl/trainer';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Io } from '../program/error-boundary';
import { oneOf } from './game-options';

interface ExportFlags {
  readonly format: string;
  readonly out: string;
  readonly adapter?: boolean;
  readonly maxShardSize?: string;
  readonly dtype?: string;
  readonly json?: boolean;
}

const DTYPES = ['f32', 'bf16', 'f16'] as const;
const DTYPE_OF: Readonly<Record<(typeof DTYPES)[number], WritableDType>> = {
  f32: 'F32',
  bf16: 'BF16',
  f16: 'F16',
};

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
    .option(
      '--max-shard-size <size>',
      'hf: largest safetensors file (5GB, 500MB, 2GiB or bytes; default 5GB as Hugging Face); larger weights are sharded with model.safetensors.index.json',
    )
    .option(
      '--dtype <dtype>',
      `hf: stored dtype of the weights, ${DTYPES.join(' | ')} (default f32; bf16/f16 round to nearest even)`,
    )
    .option('--json', 'print JSON')
    .action(async (dir: string, opts: ExportFlags) => {
      const format = oneOf(opts.format, '--format', EXPORT_FORMATS);
      const result = await exportModel({
        source: await modelSourceOf(dir),
        out: opts.out,
        format,
        adapter: opts.adapter === true,
        ...(opts.maxShardSize === undefined
          ? {}
          : { maxShardBytes: parseByteSize(opts.maxShardSize, '--max-shard-size') }),
        ...(opts.dtype === undefined ? {} : { dtype: DTYPE_OF[oneOf(opts.dtype, '--dtype', DTYPES)] }),
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
