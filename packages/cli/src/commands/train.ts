/** `mage train`: meta-RL training of mage-tiny from its warm start, with progress and a report. */

import { resolve } from 'node:path';
import { latestCheckpoint } from '@mage-rl/core';
import {
  envDefinition,
  METHOD_IDS,
  type MethodId,
  mergeConfig,
  type RunPresetId,
  recordedEnvPackage,
  type TrainConfigInput,
  useEnvPackage,
} from '@mage-rl/recipes';
import { createTrainer, DEFAULT_CACHE_DIR, type TrainerEvent, type TrainResultV1 } from '@mage-rl/trainer';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Progress } from '../output/progress';
import { progressFor } from '../output/progress';
import { iterationLine, passLine } from '../output/training-lines';
import type { Io } from '../program/error-boundary';
import { withInterrupt } from '../program/interrupt';
import { oneOf } from './game-options';
import {
  addEnvFlags,
  commandWords,
  ENV_URL_HELP,
  envFlag,
  envUrlOverride,
  presetFlagHelp,
  presetOption,
  seedOf,
  TRAINING_METHOD_IDS,
} from './learning-flags';
import { identityOf, OVERRIDE_FLAG_HELP, type OverrideFlags, overridesFromFlags } from './train-overrides';

interface TrainFlags extends OverrideFlags {
  readonly env: string;
  readonly envPackage?: string;
  readonly envUrl?: string;
  readonly method: string;
  readonly preset?: string;
  readonly seed: string;
  readonly runDir?: string;
  readonly resume?: boolean;
  readonly model?: string;
  readonly cacheDir: string;
  readonly showConfig?: boolean;
  readonly json?: boolean;
}

/** The ablation switches, `--config` and `--set` (see `train-overrides.ts`). */
function addOverrideFlags(command: Command): Command {
  const h = OVERRIDE_FLAG_HELP;
  return command
    .option('--iterations <n>', h.iterations)
    .option('--attempts <k>', h.attempts)
    .option('--memory <kind>', h.memory)
    .option('--meta-reward <mode>', h.metaReward)
    .option('--estimator <id>', h.estimator)
    .option('--grouping <mode>', h.grouping)
    .option('--anchor-scope <scope>', h.anchorScope)
    .option('--population <spec>', h.population)
    .option('--population-mode <mode>', h.populationMode)
    .option('--no-early-stop', h.earlyStop)
    .option('--config <file>', h.config)
    .option('--set <path=value...>', h.set);
}

export function trainCommand(program: Command, io: Io): void {
  const command = addEnvFlags(
    program
      .command('train')
      .description(
        'meta-RL training (MAGE and baselines) of mage-tiny from its warm start, with evaluation and a report',
      ),
  )
    .option('--env-url <url>', ENV_URL_HELP)
    .option(
      '--method <id>',
      `training method: ${TRAINING_METHOD_IDS.join(' | ')} (the others need no training: mage eval)`,
      'mage',
    )
    .option('--preset <id>', presetFlagHelp())
    .option('--seed <n>', 'run seed (warm start, tasks, sampling)', '1')
    .option('--run-dir <dir>', 'run directory (default runs/<env>-<method>-<preset>-s<seed>)')
    .option('--resume', 'continue a killed run from its last complete checkpoint')
    .option(
      '--model <dir>',
      'start from this mage-tiny or Hugging Face checkpoint directory (LoRA above 20 M parameters) instead of the cached warm start',
    )
    .option('--cache-dir <dir>', 'warm-start cache root', DEFAULT_CACHE_DIR);
  addOverrideFlags(command)
    .option('--show-config', 'print the resolved config as JSON and exit (nothing runs)')
    .option('--json', 'print the final result as JSON (no progress output)')
    .action((opts: TrainFlags) => runTrain(opts, command, io));
}

/** What a `mage train` call trains: its identity (from flags or config values) and the overrides. */
interface TrainCall {
  readonly env: string;
  readonly method: MethodId;
  /** Undefined: the env's recipe preset. */
  readonly preset?: RunPresetId;
  readonly seed: number;
  readonly overrides: TrainConfigInput;
}

async function trainCallOf(opts: TrainFlags, command: Command): Promise<TrainCall> {
  const typed = (flag: string) => command.getOptionValueSource(flag) !== 'default';
  const values = mergeConfig(overridesFromFlags(opts), envUrlOverride(opts.envUrl));
  // A resumed run finds its env package in its own config.json when neither a flag nor the config names one.
  const named = opts.envPackage ?? values.env?.package;
  const recorded =
    named === undefined && opts.resume && opts.runDir
      ? await recordedEnvPackage(resolve(opts.runDir))
      : undefined;
  const { overrides, definition } = await useEnvPackage(named ?? recorded, values);
  const flags = { ...opts, env: envFlag(command, opts.env, definition?.id) };
  const id = identityOf(flags, typed, overrides);
  return {
    env: envDefinition(id.env).id,
    method: oneOf(id.method, '--method', METHOD_IDS),
    ...presetOption(id.preset),
    seed: seedOf(id.seed),
    overrides,
  };
}

async function runTrain(opts: TrainFlags, command: Command, io: Io): Promise<void> {
  const trainer = createTrainer({
    ...(await trainCallOf(opts, command)),
    ...(opts.runDir === undefined ? {} : { runDir: opts.runDir }),
    ...(opts.model === undefined ? {} : { model: opts.model }),
    cacheDir: opts.cacheDir,
  });
  if (opts.showConfig) {
    printJson(io, trainer.config);
    return;
  }
  const { runDir } = trainer;
  const progress = progressFor(io, opts.json);
  const onEvent = trainProgressHandler(progress, runDir);
  await withInterrupt(
    async (signal) => {
      try {
        const r = await trainer.train({ ...(opts.resume ? { resume: true } : {}), signal, onEvent });
        progress.stop();
        printTrainResult(io, r, opts.json);
      } finally {
        progress.stop();
      }
    },
    () => resumeHint(runDir, command),
  );
}

/** Where an interrupted run stands and the command that continues it. */
async function resumeHint(runDir: string, command: Command): Promise<string> {
  const words = commandWords(command);
  const last = await latestCheckpoint(runDir).catch(() => null);
  if (last === null) return `No checkpoint was written yet; start again with: mage ${words.join(' ')}`;
  const again = words.includes('--resume') ? words : [...words, '--resume'];
  return `Nothing up to the checkpoint after iteration ${last.iteration} is lost (${last.dir}); continue with: mage ${again.join(' ')}`;
}

/** Bars for iterations, rollout slots and the warm start, a summary line per training event, log lines. */
function trainProgressHandler(progress: Progress, runDir: string): (e: TrainerEvent) => void {
  const iterBar = progress.bar('iteration', 1);
  const turnBar = progress.bar('rollout', 1);
  const pretrainBar = progress.bar('warm start', 1);
  let turns = 0;
  return (e) => {
    if (e.type === 'log') progress.log(e.line);
    else if (e.type === 'warm-start-progress') {
      const p = e.progress;
      pretrainBar.setTotal(p.total);
      pretrainBar.update(p.done, {
        info: `${p.phase}${p.loss === undefined ? '' : ` loss ${p.loss.toFixed(3)}`}`,
      });
    } else if (e.type === 'runner') {
      if (e.event.type === 'rollout-start') {
        turns = 0;
        turnBar.setTotal(e.event.slots);
        turnBar.update(0, { info: e.phase });
      } else if (e.event.type === 'slot-end') {
        turnBar.update(++turns, { info: e.phase });
      }
    } else {
      if (e.type === 'run-start') {
        const resumed = e.resumedFrom ? `resumed after iteration ${e.resumedFrom.iteration}` : '';
        iterBar.setTotal(e.iterations);
        iterBar.update(e.startIteration, { info: resumed });
        progress.log(`run: ${runDir}${resumed ? ` (${resumed})` : ''}`);
      }
      if (e.type === 'update-end')
        iterBar.update(e.iteration + 1, {
          info: `loss ${e.loss?.toFixed(3) ?? 'n/a'}, ${Math.round(e.timing.tokensPerSecond)} tok/s`,
        });
      const line = iterationLine(e);
      if (line) progress.log(line);
    }
  };
}

function printTrainResult(io: Io, r: TrainResultV1, json: boolean | undefined): void {
  if (json) {
    printJson(io, {
      runDir: r.runDir,
      warmStart: r.warmStart,
      iterations: r.result.iterations,
      lastCheckpoint: r.result.lastCheckpoint,
      lastEval: r.result.lastEval,
      report: r.report.markdown,
      alreadyFinished: r.alreadyFinished,
    });
    return;
  }
  const e = r.result.lastEval;
  io.stdout(
    r.alreadyFinished
      ? `run already complete: ${r.runDir} has trained all ${r.result.iterations} iterations (last checkpoint ${r.result.lastCheckpoint}); nothing was trained. To train it further, resume with a larger --iterations.\n`
      : `trained ${r.config.method} on ${r.config.env.id} for ${r.result.iterations} iterations: ${r.runDir}\n`,
  );
  if (e)
    io.stdout(
      `final eval: in-domain pass@k ${passLine(e.inDomain)}; out-of-domain ${passLine(e.outOfDomain)}\n`,
    );
  io.stdout(`report: ${r.report.markdown}\n`);
}
