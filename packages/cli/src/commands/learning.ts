/**
 * `mage pretrain`, `mage train` and `mage eval`: the learning commands. They share flag parsing, the
 * progress display and the per-iteration summary lines.
 */

import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  type CreditDiagnosticsV1,
  latestCheckpoint,
  type MetaEpisodeMetricsV1,
  type PolicyV1,
  type TrainingEvent,
} from '@mage-rl/core';
import type { OnnxLearner } from '@mage-rl/learner';
import {
  createEnvById,
  createTeacher,
  envDefinition,
  envRegistry,
  evaluateMethod,
  METHOD_IDS,
  type MethodId,
  RUN_PRESET_IDS,
  type RunPresetId,
  resolveTrainConfig,
} from '@mage-rl/recipes';
import type { Command } from 'commander';
import { formatTable, printJson } from '../output/format';
import { createProgress, type Progress } from '../output/progress';
import { loadModel } from '../pipelines/policy-model';
import { DEFAULT_CACHE_DIR, pretrainMageTiny, warmStartDir } from '../pipelines/pretrain';
import { trainConfigOf, trainPipeline } from '../pipelines/train';
import type { Io } from '../program/error-boundary';
import { useEnvPackage } from '../registry';
import { oneOf, positiveInt } from './game-options';
import { identityOf, OVERRIDE_FLAG_HELP, type OverrideFlags, overridesFromFlags } from './train-overrides';

/** Help of `--env`: the ids of the env registry. */
export function envFlagHelp(): string {
  return `${envRegistry().ids.join(' | ')}, or the env of --env-package`;
}

/** Help of `--env-package`. */
export const ENV_PACKAGE_HELP =
  'add the env of a package: an npm name (resolved from the working directory) or a path, exporting an EnvDefinitionV1 as `envDefinition` or default';

/** The env id a learning command uses: `--env` when typed, else the env of the env package, else the default. */
function envFlag(opts: { readonly env: string }, typed: boolean, packageEnv: string | undefined): string {
  return typed || packageEnv === undefined ? opts.env : packageEnv;
}

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

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

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

export function pretrainCommand(program: Command, io: Io): void {
  program
    .command('pretrain')
    .description(
      'warm-start mage-tiny on transcripts of non-exploiting teachers (cached by env, preset and seed)',
    )
    .option('--env <ids>', `comma-separated envs: ${envFlagHelp()}`, 'tictactoe')
    .option('--env-package <name-or-path>', ENV_PACKAGE_HELP)
    .option('--preset <id>', `run preset: ${RUN_PRESET_IDS.join(' | ')}`, 'laptop')
    .option('--seed <n>', 'seed of the corpus, tokenizer and weights', '1')
    .option('--out <dir>', 'output directory (default: the cache entry under --cache-dir)')
    .option('--cache-dir <dir>', 'cache root', DEFAULT_CACHE_DIR)
    .option(
      '--eval-episodes <n>',
      'meta-episodes per opponent for the legal-move check (default: the preset’s)',
    )
    .option('--json', 'print the result as JSON')
    .action(
      async (
        opts: {
          env: string;
          envPackage?: string;
          preset: string;
          seed: string;
          out?: string;
          cacheDir: string;
          evalEpisodes: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const { definition } = await useEnvPackage(opts.envPackage, {});
        const envText = envFlag(opts, command.getOptionValueSource('env') !== 'default', definition?.id);
        const envs = envText.split(',').map((e) => envDefinition(e.trim()).id);
        const preset = oneOf(opts.preset, '--preset', RUN_PRESET_IDS);
        const seed = seedOf(opts.seed);
        const outDir = resolve(opts.out ?? warmStartDir(opts.cacheDir, { envs, preset, seed }));
        const progress = progressFor(io, opts.json);
        const bars = {
          corpus: progress.bar('corpus', 1),
          train: progress.bar('train', 1),
          eval: progress.bar('eval', 1),
        };
        try {
          const r = await pretrainMageTiny({
            envs,
            preset,
            seed,
            outDir,
            ...(opts.evalEpisodes
              ? { evalEpisodes: positiveInt(opts.evalEpisodes, '--eval-episodes', 10_000) }
              : {}),
            log: (line) => progress.log(line),
            onProgress: (p) => {
              if (p.phase === 'save') return;
              const bar = bars[p.phase];
              bar.setTotal(p.total);
              bar.update(p.done, { info: p.loss === undefined ? '' : `loss ${p.loss.toFixed(4)}` });
            },
          });
          progress.stop();
          if (opts.json) {
            printJson(io, r);
            return;
          }
          io.stdout(`mage-tiny warm start: ${r.dir}\n`);
          io.stdout(
            `${r.parameters} parameters, vocabulary ${r.vocabSize}, ${r.examples} examples (${r.tokens} tokens), ${r.seconds.toFixed(0)} s\n`,
          );
          const curve = r.lossCurve;
          const marks = [
            0,
            Math.floor(curve.length / 4),
            Math.floor(curve.length / 2),
            Math.floor((3 * curve.length) / 4),
            curve.length - 1,
          ];
          io.stdout(
            `loss curve: ${[...new Set(marks)]
              .filter((i) => curve[i])
              .map((i) => `step ${curve[i]?.step}: ${curve[i]?.loss.toFixed(3)}`)
              .join(', ')}\n\n`,
          );
          io.stdout(
            `${formatTable(
              ['env', 'legal moves', 'notes with <remark>', 'warm pass@k', 'teacher pass@k'],
              r.envs.map((e) => [
                e.env,
                pct(e.legalMoveRate),
                pct(e.validReflectionRate),
                e.passAtK.map((x) => x.toFixed(2)).join(' '),
                e.teacherPassAtK.map((x) => x.toFixed(2)).join(' '),
              ]),
            )}\n`,
          );
        } finally {
          progress.stop();
        }
      },
    );
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
  const command = program
    .command('train')
    .description(
      'meta-RL training (MAGE and baselines) of mage-tiny from its warm start, with evaluation and a report',
    )
    .option('--env <id>', envFlagHelp(), 'tictactoe')
    .option('--env-package <name-or-path>', ENV_PACKAGE_HELP)
    .option('--method <id>', `training method: ${METHOD_IDS.join(' | ')}`, 'mage')
    .option('--preset <id>', `run preset: ${RUN_PRESET_IDS.join(' | ')}`, 'laptop')
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
    .action(
      async (
        opts: OverrideFlags & {
          env: string;
          envPackage?: string;
          method: string;
          preset: string;
          seed: string;
          runDir?: string;
          resume?: boolean;
          model?: string;
          cacheDir: string;
          showConfig?: boolean;
          json?: boolean;
        },
      ) => {
        const typed = (flag: string) => command.getOptionValueSource(flag) !== 'default';
        const { overrides, definition } = await useEnvPackage(opts.envPackage, overridesFromFlags(opts));
        const flags = { ...opts, env: envFlag(opts, typed('env'), definition?.id) };
        const id = identityOf(flags, typed, overrides);
        const env = envDefinition(id.env).id;
        const method = oneOf(id.method, '--method', METHOD_IDS) as MethodId;
        const preset = oneOf(id.preset, '--preset', RUN_PRESET_IDS) as RunPresetId;
        const seed = seedOf(id.seed);
        const config = trainConfigOf({ env, method, preset, seed, overrides });
        if (opts.showConfig) {
          printJson(io, config);
          return;
        }
        const runDir = resolve(opts.runDir ?? join('runs', `${env}-${method}-${preset}-s${seed}`));
        const progress = progressFor(io, opts.json);
        const iterBar = progress.bar('iteration', 1);
        const turnBar = progress.bar('rollout', 1);
        const pretrainBar = progress.bar('warm start', 1);
        const controller = new AbortController();
        const onSignal = () => controller.abort(new Error('interrupted'));
        process.once('SIGINT', onSignal);
        let turns = 0;
        try {
          const r = await trainPipeline({
            env,
            method,
            preset,
            seed,
            runDir,
            ...(opts.resume ? { resume: true } : {}),
            ...(opts.model ? { model: resolve(opts.model) } : {}),
            cacheDir: opts.cacheDir,
            overrides,
            signal: controller.signal,
            log: (line) => progress.log(line),
            onPretrainProgress: (p) => {
              pretrainBar.setTotal(p.total);
              pretrainBar.update(p.done, {
                info: `${p.phase}${p.loss === undefined ? '' : ` loss ${p.loss.toFixed(3)}`}`,
              });
            },
            onRunnerEvent: (e, phase) => {
              if (e.type === 'rollout-start') {
                turns = 0;
                turnBar.setTotal(e.slots);
                turnBar.update(0, { info: phase });
              } else if (e.type === 'slot-end') {
                turnBar.update(++turns, { info: phase });
              }
            },
            onEvent: (e) => {
              if (e.type === 'run-start') {
                iterBar.setTotal(e.iterations);
                iterBar.update(e.startIteration, {
                  info: e.resumedFrom ? `resumed after iteration ${e.resumedFrom.iteration}` : '',
                });
                progress.log(
                  `run: ${runDir}${e.resumedFrom ? ` (resumed after iteration ${e.resumedFrom.iteration})` : ''}`,
                );
              }
              if (e.type === 'update-end')
                iterBar.update(e.iteration + 1, {
                  info: `loss ${e.loss?.toFixed(3) ?? 'n/a'}, ${Math.round(e.timing.tokensPerSecond)} tok/s`,
                });
              const line = iterationLine(e);
              if (line) progress.log(line);
            },
          });
          progress.stop();
          if (opts.json) {
            printJson(io, {
              runDir: r.runDir,
              warmStart: r.warmStart,
              iterations: r.result.iterations,
              lastCheckpoint: r.result.lastCheckpoint,
              lastEval: r.result.lastEval,
              report: r.report.markdown,
            });
            return;
          }
          const e = r.result.lastEval;
          io.stdout(
            `trained ${r.config.method} on ${r.config.env.id} for ${r.result.iterations} iterations: ${r.runDir}\n`,
          );
          if (e)
            io.stdout(
              `final eval: in-domain pass@k ${passLine(e.inDomain)}; out-of-domain ${passLine(e.outOfDomain)}\n`,
            );
          io.stdout(`report: ${r.report.markdown}\n`);
        } finally {
          process.off('SIGINT', onSignal);
          progress.stop();
        }
      },
    );
}

/**
 * A policy by name: `teacher`, a run directory (its latest checkpoint), or a model directory (mage-tiny or
 * a Hugging Face checkpoint).
 */
async function policyOf(
  spec: string,
  envId: string,
  style: 'verbose' | 'compact',
): Promise<{ policy: PolicyV1; dispose: () => Promise<void> }> {
  if (spec === 'teacher')
    return { policy: createTeacher(createEnvById(envId), { style }), dispose: async () => {} };
  const dir = resolve(spec);
  const checkpoint = await latestCheckpoint(dir);
  let learner: OnnxLearner;
  if (checkpoint) {
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as {
      extra?: { warmStartDir?: unknown; warmStart?: unknown };
    };
    // Runs written before `warmStartDir` existed recorded the directory under `warmStart`.
    const warm = config.extra?.warmStartDir ?? config.extra?.warmStart;
    if (typeof warm !== 'string') {
      throw new ConfigError(`Run '${dir}' does not record its warm start; cannot rebuild its model.`, {
        path: '--policy',
      });
    }
    learner = await loadModel(warm);
    await learner.load(checkpoint.dir);
  } else {
    learner = await loadModel(dir);
  }
  return { policy: learner.policy, dispose: () => learner.dispose() };
}

export function evalCommand(program: Command, io: Io): void {
  program
    .command('eval')
    .description(
      'evaluate a policy for K attempts against named opponents (react, reflexion, memento, a-mem need no training)',
    )
    .option('--env <id>', envFlagHelp(), 'tictactoe')
    .option('--env-package <name-or-path>', ENV_PACKAGE_HELP)
    .option('--method <id>', `memory and prompts of this method: ${METHOD_IDS.join(' | ')}`, 'reflexion')
    .option(
      '--policy <spec>',
      "'teacher', a mage-tiny directory, or a run directory (latest checkpoint)",
      'teacher',
    )
    .option(
      '--opponents <ids>',
      'comma-separated opponent ids (default: the in-domain and out-of-domain sets)',
    )
    .option('--episodes <n>', 'meta-episodes per opponent', '16')
    .option('--attempts <k>', 'attempts per meta-episode (K)', '3')
    .option(
      '--preset <id>',
      `run preset for prompt layout and sampling: ${RUN_PRESET_IDS.join(' | ')}`,
      'laptop',
    )
    .option('--seed <n>', 'evaluation seed', '0')
    .option('--json', 'print JSON')
    .action(
      async (
        opts: {
          env: string;
          envPackage?: string;
          method: string;
          policy: string;
          opponents?: string;
          episodes: string;
          attempts: string;
          preset: string;
          seed: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const { definition } = await useEnvPackage(opts.envPackage, {});
        const env = envDefinition(
          envFlag(opts, command.getOptionValueSource('env') !== 'default', definition?.id),
        ).id;
        const method = oneOf(opts.method, '--method', METHOD_IDS) as MethodId;
        const preset = oneOf(opts.preset, '--preset', RUN_PRESET_IDS) as RunPresetId;
        const config = resolveTrainConfig({}, { preset, method, env });
        const opponents = opts.opponents
          ? opts.opponents
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [...config.eval.inDomain, ...config.eval.outOfDomain];
        const { policy, dispose } = await policyOf(opts.policy, env, config.rollout.style);
        try {
          const result = await evaluateMethod({
            env: createEnvById(env, { ...config.env.options, ...config.eval.envOptions }),
            policy,
            method,
            opponents,
            episodes: positiveInt(opts.episodes, '--episodes', 100_000),
            attempts: positiveInt(opts.attempts, '--attempts', 20),
            context: config.rollout.context,
            style: config.rollout.style,
            seats: config.rollout.seats,
            maxTokens: config.rollout.maxTokens,
            sampling: {
              temperature: config.eval.temperature,
              topP: config.eval.topP,
              ...(config.eval.topK > 0 ? { topK: config.eval.topK } : {}),
            },
            seed: seedOf(opts.seed),
          });
          const m = result.metrics;
          if (opts.json) {
            printJson(io, { env, method, policy: opts.policy, opponents, metrics: m });
            return;
          }
          const rows = Object.entries(m.byOpponent).map(([id, s]) => [
            id,
            s.metaEpisodes,
            ...s.perAttempt.map(
              (a) => `${pct(a.passAtK.rate)} [${pct(a.passAtK.low)}, ${pct(a.passAtK.high)}]`,
            ),
            pct(s.perAttempt.at(-1)?.draw.rate ?? 0),
            pct(s.invalidActionRate.rate),
          ]);
          const k = m.attempts;
          const success = envDefinition(env).labels?.success ?? 'success';
          io.stdout(
            `${env}, method ${method}, policy ${opts.policy}: cumulative success (${success}) pass@k (95% Wilson interval)\n\n`,
          );
          io.stdout(
            `${formatTable(
              [
                'opponent',
                'episodes',
                ...Array.from({ length: k }, (_, i) => `pass@${i + 1}`),
                `draws (attempt ${k})`,
                'invalid',
              ],
              [
                ...rows,
                [
                  'overall',
                  m.overall.metaEpisodes,
                  ...m.overall.perAttempt.map((a) => pct(a.passAtK.rate)),
                  pct(m.overall.perAttempt.at(-1)?.draw.rate ?? 0),
                  pct(m.overall.invalidActionRate.rate),
                ],
              ],
            )}\n`,
          );
        } finally {
          await dispose();
        }
      },
    );
}
