/** `mage pretrain`: the supervised warm start of mage-tiny, with progress bars and a summary. */

import { ConfigError } from '@mage-rl/core';
import { envDefinition, type TrainConfigInput, useEnvPackage } from '@mage-rl/recipes';
import {
  createTrainer,
  DEFAULT_CACHE_DIR,
  noteRecallWarning,
  type PretrainResult,
  type TrainerEvent,
  warmStartOverridesOf,
} from '@mage-rl/trainer';
import type { Command } from 'commander';
import { formatTable, printJson } from '../output/format';
import type { Progress } from '../output/progress';
import { progressFor } from '../output/progress';
import { pct } from '../output/training-lines';
import type { Io } from '../program/error-boundary';
import { positiveInt } from './game-options';
import {
  ENV_PACKAGE_HELP,
  envFlag,
  envFlagHelp,
  presetFlagHelp,
  presetOption,
  seedOf,
} from './learning-flags';
import { OVERRIDE_FLAG_HELP, overridesFromFlags } from './train-overrides';

interface PretrainFlags {
  readonly env: string;
  readonly envPackage?: string;
  readonly preset?: string;
  readonly seed: string;
  readonly out?: string;
  readonly cacheDir: string;
  readonly evalEpisodes?: string;
  readonly config?: string;
  readonly set?: readonly string[];
  readonly force?: boolean;
  readonly json?: boolean;
}

export function pretrainCommand(program: Command, io: Io): void {
  program
    .command('pretrain')
    .description(
      'warm-start mage-tiny on transcripts of non-exploiting teachers (cached by env, preset and seed)',
    )
    .option('--env <ids>', `comma-separated envs: ${envFlagHelp('warm-start')}`, 'tictactoe')
    .option('--env-package <name-or-path>', ENV_PACKAGE_HELP)
    .option('--preset <id>', presetFlagHelp())
    .option('--seed <n>', 'seed of the corpus, tokenizer and weights', '1')
    .option('--out <dir>', 'output directory (default: the cache entry under --cache-dir)')
    .option('--cache-dir <dir>', 'cache root', DEFAULT_CACHE_DIR)
    .option(
      '--eval-episodes <n>',
      'meta-episodes per opponent for the warm model’s evaluation (default: the preset’s; 0 skips it)',
    )
    .option('--config <file>', `${OVERRIDE_FLAG_HELP.config}; only warmStart and env.options apply`)
    .option(
      '--set <path=value...>',
      'set a warm-start value: --set warmStart.epochs=2 (warmStart.* or env.options.*)',
    )
    .option('--force', 'pretrain again even when the cache holds this warm start (it replaces the entry)')
    .option('--json', 'print the result as JSON (`cached`: whether it was reused)')
    .action((opts: PretrainFlags, command: Command) => runPretrain(opts, command, io));
}

async function runPretrain(opts: PretrainFlags, command: Command, io: Io): Promise<void> {
  const { definition } = await useEnvPackage(opts.envPackage, {});
  const envText = envFlag(command, opts.env, definition?.id);
  const envs = envText.split(',').map((e) => envDefinition(e.trim()).id);
  const trainer = createTrainer({
    env: envs[0] as string,
    ...presetOption(opts.preset),
    seed: seedOf(opts.seed),
    cacheDir: opts.cacheDir,
    overrides: warmStartOverrides(opts),
  });
  const progress = progressFor(io, opts.json);
  try {
    // The cache entry is keyed by everything that makes the warm start: reused unless --force (--out always writes).
    const r = await trainer.warmStart({
      envs,
      ...(opts.out === undefined ? {} : { outDir: opts.out }),
      ...(opts.force ? { force: true } : {}),
      ...(opts.evalEpisodes !== undefined ? { evalEpisodes: evalEpisodesOf(opts.evalEpisodes) } : {}),
      onEvent: pretrainBars(progress),
    });
    progress.stop();
    if (opts.json) printJson(io, r);
    else {
      if (r.cached)
        io.stdout(
          `cached (made earlier with the same env, preset, seed and warm-start settings; --force pretrains again)\n`,
        );
      printPretrainResult(io, r);
    }
  } finally {
    progress.stop();
  }
}

/**
 * The warm-start values of `--config`/`--set` (they enter the cache key); any other config path is refused,
 * since pretraining reads nothing else.
 */
function warmStartOverrides(opts: Pick<PretrainFlags, 'config' | 'set'>): TrainConfigInput {
  const overrides = overridesFromFlags({
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.set ? { set: opts.set } : {}),
  });
  const { otherPaths } = warmStartOverridesOf(overrides);
  if (otherPaths.length > 0) {
    throw new ConfigError(
      `pretrain's --config/--set take only warmStart.* and env.options.* (what makes a warm start), got ${otherPaths.join(', ')}.`,
      { path: otherPaths[0] as string },
    );
  }
  return overrides;
}

/** `--eval-episodes`: a count, or 0 to skip the evaluation. */
function evalEpisodesOf(text: string): number {
  return text.trim() === '0' ? 0 : positiveInt(text, '--eval-episodes', 10_000);
}

/** One bar per phase (corpus, train, eval); the training bar shows the last loss; log lines above them. */
function pretrainBars(progress: Progress): (e: TrainerEvent) => void {
  const bars = {
    corpus: progress.bar('corpus', 1),
    train: progress.bar('train', 1),
    eval: progress.bar('eval', 1),
  };
  return (e) => {
    if (e.type === 'log') progress.log(e.line);
    if (e.type !== 'warm-start-progress') return;
    const p = e.progress;
    if (p.phase === 'save') return;
    const bar = bars[p.phase];
    bar.setTotal(p.total);
    bar.update(p.done, { info: p.loss === undefined ? '' : `loss ${p.loss.toFixed(4)}` });
  };
}

/** The loss at five points of the curve: `step 4: 4.830, step 7: 4.363`. */
function lossCurveLine(curve: PretrainResult['lossCurve']): string {
  const marks = [
    0,
    Math.floor(curve.length / 4),
    Math.floor(curve.length / 2),
    Math.floor((3 * curve.length) / 4),
    curve.length - 1,
  ];
  return [...new Set(marks)]
    .filter((i) => curve[i])
    .map((i) => `step ${curve[i]?.step}: ${curve[i]?.loss.toFixed(3)}`)
    .join(', ');
}

/** A warm start's note recall on an env, or — for an env without notes. */
const recallText = (e: PretrainResult['envs'][number]): string =>
  e.noteRecall === undefined ? '—' : pct(e.noteRecall);

function printPretrainResult(io: Io, r: PretrainResult): void {
  io.stdout(`mage-tiny warm start: ${r.dir}\n`);
  io.stdout(
    `${r.parameters} parameters, vocabulary ${r.vocabSize}, ${r.examples} examples (${r.tokens} tokens), ${r.seconds.toFixed(0)} s, peak RSS ${(r.peakRssBytes / 2 ** 30).toFixed(2)} GiB\n`,
  );
  io.stdout(`loss curve: ${lossCurveLine(r.lossCurve)}\n`);
  if (r.firstTry) {
    const recall = r.firstTry.envs.map((e) => `${e.env} ${recallText(e)}`).join(', ');
    io.stdout(
      `made again (warmStart.retryEpochs): the first try trained ${r.firstTry.epochs} epochs and its notes recalled ${recall}\n`,
    );
  }
  io.stdout('\n');
  if (r.envs.length === 0) {
    io.stdout('not evaluated (--eval-episodes 0)\n');
    return;
  }
  io.stdout(
    `${formatTable(
      ['env', 'legal moves', 'notes with <remark>', 'notes recall', 'warm pass@k', 'teacher pass@k'],
      r.envs.map((e) => [
        e.env,
        pct(e.legalMoveRate),
        pct(e.validReflectionRate),
        recallText(e),
        e.passAtK.map((x) => x.toFixed(2)).join(' '),
        e.teacherPassAtK.map((x) => x.toFixed(2)).join(' '),
      ]),
    )}\n`,
  );
  for (const e of r.envs) {
    const warning = noteRecallWarning(e);
    if (warning) io.stdout(`${warning}\n`);
  }
}
