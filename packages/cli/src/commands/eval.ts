/** `mage eval`: a policy plays K attempts against named opponents with a method's memory and prompts. */

import {
  codeLabel,
  type MetaEpisodeMetricsV1,
  type MetricsSummaryV1,
  machineLabel,
  meanInterval,
  type PairedPassBenefitV1,
  storedPath,
} from '@mage-rl/core';
import { envDefinition, MEMORY_KINDS, METHOD_IDS, mergeConfig, useEnvPackage } from '@mage-rl/recipes';
import {
  ceilingShare,
  createTrainer,
  EVALUATE_DEFAULTS,
  type ForeignNoteSwapsV1,
  type ReturnUnitV1,
  returnBenefit,
  returnsIn,
  signed,
  swapsText,
} from '@mage-rl/trainer';
import type { Command } from 'commander';
import { type Cell, formatTable, printJson } from '../output/format';
import { pct } from '../output/training-lines';
import type { Io } from '../program/error-boundary';
import { oneOf, positiveInt } from './game-options';
import {
  addEnvFlags,
  chosenEnv,
  commaList,
  ENV_URL_HELP,
  envUrlOverride,
  presetFlagHelp,
  presetOption,
  seedOf,
} from './learning-flags';
import { envOptionsOf } from './train-overrides';

interface EvalFlags {
  readonly env: string;
  readonly envPackage?: string;
  readonly envUrl?: string;
  readonly option?: readonly string[];
  readonly method?: string;
  readonly memory?: string;
  readonly memoryBaseline: boolean;
  readonly foreignNotes?: boolean;
  readonly noteDonor?: string;
  readonly policy: string;
  readonly model?: string;
  readonly apiKey?: string;
  readonly opponents?: string;
  readonly episodes: string;
  readonly attempts: string;
  readonly preset?: string;
  readonly seed: string;
  readonly json?: boolean;
}

export function evalCommand(program: Command, io: Io): void {
  addEnvFlags(
    program
      .command('eval')
      .description(
        'evaluate a policy for K attempts against named opponents (react, reflexion, memento, a-mem need no training)',
      ),
  )
    .option('--env-url <url>', ENV_URL_HELP)
    .option(
      '--option <key=value...>',
      "env option, over a run's own: --option maxTurns=1 (value parsed as JSON); a model directory plays the env's defaults otherwise",
    )
    .option(
      '--method <id>',
      `memory and prompts of this method: ${METHOD_IDS.join(' | ')} (default: a run's own method and memory, else reflexion)`,
    )
    .option(
      '--memory <kind>',
      `what earlier attempts leave in the context, whatever the method: ${MEMORY_KINDS.join(' | ')} (default: the method's)`,
    )
    .option(
      '--no-memory-baseline',
      'with a memory other than none: skip the second run with no memory on the same tasks (the memory benefit)',
    )
    .option(
      '--foreign-notes',
      "with a memory that shows notes: also play the same tasks with each earlier attempt's note taken from another meta-episode (does the policy read its notes, or only need notes in its context?)",
    )
    .option(
      '--note-donor <spec>',
      "with --foreign-notes: take the foreign notes from this policy's play of the same tasks ('teacher', a model or run directory) instead of the evaluated policy's own; its notes name moves the policy did not make, which its own cannot when it always starts the same way",
    )
    .option(
      '--policy <spec>',
      "'teacher', a model or run directory (latest checkpoint), or an OpenAI-compatible server's URL (http://host:port/v1); a run plays on its own env (unless --env names another) with its env options and evaluation protocol",
      'teacher',
    )
    .option('--model <name>', 'with a server URL as --policy: the served model (or adapter) name')
    .option('--api-key <key>', 'with a server URL as --policy: its API key')
    .option(
      '--opponents <ids>',
      'comma-separated opponent ids (default: the in-domain and out-of-domain sets)',
    )
    .option('--episodes <n>', 'meta-episodes per opponent', String(EVALUATE_DEFAULTS.episodes))
    .option('--attempts <k>', 'attempts per meta-episode (K)', String(EVALUATE_DEFAULTS.attempts))
    .option('--preset <id>', presetFlagHelp('run preset for prompt layout and sampling'))
    .option('--seed <n>', 'evaluation seed', String(EVALUATE_DEFAULTS.seed))
    .option('--json', 'print JSON')
    .action((opts: EvalFlags, command: Command) => runEval(opts, command, io));
}

async function runEval(opts: EvalFlags, command: Command, io: Io): Promise<void> {
  const { definition } = await useEnvPackage(opts.envPackage, {});
  // Without --env, a run plays on the env it trained on (else the default env).
  const chosen = chosenEnv(command, opts.env, definition?.id);
  const trainer = createTrainer({
    ...(chosen === undefined ? {} : { env: envDefinition(chosen).id }),
    ...presetOption(opts.preset),
    overrides: mergeConfig(
      envUrlOverride(opts.envUrl),
      opts.option ? { env: { options: envOptionsOf(opts.option) } } : {},
    ),
  });
  const r = await trainer.evaluate({
    policy: opts.policy,
    ...(opts.method === undefined ? {} : { method: oneOf(opts.method, '--method', METHOD_IDS) }),
    ...(opts.memory === undefined ? {} : { memory: oneOf(opts.memory, '--memory', MEMORY_KINDS) }),
    ...(opts.opponents ? { opponents: commaList(opts.opponents) } : {}),
    episodes: positiveInt(opts.episodes, '--episodes', 100_000),
    attempts: positiveInt(opts.attempts, '--attempts', 20),
    seed: seedOf(opts.seed),
    baseline: opts.memoryBaseline,
    foreignNotes: opts.foreignNotes === true,
    ...(opts.noteDonor === undefined ? {} : { noteDonor: opts.noteDonor }),
    ...(opts.model === undefined ? {} : { model: opts.model }),
    ...(opts.apiKey === undefined ? {} : { apiKey: opts.apiKey }),
  });
  const { env, method, memory, opponents, result, withoutMemory, foreignNotes, code, machine } = r;
  const m = result.metrics;
  const baseline = withoutMemory?.result;
  const benefit = withoutMemory?.benefit;
  if (opts.json) {
    printJson(io, {
      env,
      method,
      memory,
      policy: storedSpec(opts.policy),
      code,
      machine,
      opponents,
      ...(r.returnUnit ? { returnUnit: r.returnUnit } : {}),
      metrics: m,
      ...(baseline && benefit
        ? {
            withoutMemory: baseline.metrics,
            memoryBenefit: { versus: 'none', ...benefit },
            ...(r.identificationCeiling === undefined
              ? {}
              : { identificationCeiling: r.identificationCeiling }),
          }
        : {}),
      ...(foreignNotes
        ? {
            withForeignNotes: foreignNotes.result.metrics,
            notesBenefit: {
              versus: 'foreign-notes',
              ...(opts.noteDonor === undefined ? {} : { donor: storedSpec(opts.noteDonor) }),
              ...foreignNotes.benefit,
              swaps: foreignNotes.swaps,
              ...(foreignNotes.whereNotesDiffer ? { whereNotesDiffer: foreignNotes.whereNotesDiffer } : {}),
            },
          }
        : {}),
    });
    return;
  }
  const success = envDefinition(env).labels?.success ?? 'success';
  io.stdout(
    `${env}, method ${method}, memory ${memory}, policy ${opts.policy}: cumulative success (${success}) pass@k (95% Wilson interval)\n\n`,
  );
  io.stdout(`${evalTable(m, r.returnUnit)}\n`);
  io.stdout(`\ncode: ${codeLabel(code)}; machine: ${machineLabel(machine)}\n`);
  const repeats = repeatsLine(m);
  if (repeats) io.stdout(`\n${repeats}\n`);
  const notes = notesLine(m);
  if (notes) io.stdout(`\n${notes}\n`);
  if (baseline && benefit) {
    io.stdout(`\nthe same policy and tasks with no memory (K independent attempts):\n\n`);
    io.stdout(`${evalTable(baseline.metrics, r.returnUnit)}\n`);
    io.stdout(`\n${benefitLine(memory, benefit, m, baseline.metrics, r.returnUnit)}\n`);
    if (r.identificationCeiling !== undefined)
      io.stdout(`${ceilingLine(r.identificationCeiling, benefit)}\n`);
  }
  if (foreignNotes) {
    const from = opts.noteDonor === undefined ? '' : ` played by ${opts.noteDonor}`;
    io.stdout(`\nthe same policy and tasks, each earlier note taken from another meta-episode${from}:\n\n`);
    io.stdout(`${evalTable(foreignNotes.result.metrics, r.returnUnit)}\n`);
    io.stdout(
      `\n${benefitLine(memory, foreignNotes.benefit, m, foreignNotes.result.metrics, r.returnUnit, 'foreign notes')}\n`,
    );
    io.stdout(`${swapsLine(foreignNotes.swaps, foreignNotes.whereNotesDiffer)}\n`);
  }
}

/**
 * A policy or note donor spec as records store it: a directory relative to the working directory when
 * inside it (core's `storedPath`); `teacher` and server URLs as given.
 */
function storedSpec(spec: string): string {
  return spec === 'teacher' || /^https?:\/\//.test(spec) ? spec : storedPath(spec);
}

/**
 * `memory benefit (reflection − none) …`: pass@k and invalid moves, paired over the meta-episodes; with a
 * return unit, also the difference of the mean return of each attempt in that unit.
 */
function benefitLine(
  memory: string,
  benefit: PairedPassBenefitV1,
  withMemory: MetaEpisodeMetricsV1,
  without: MetaEpisodeMetricsV1,
  unit: ReturnUnitV1 | undefined,
  versus = 'none',
): string {
  const invalid = withMemory.overall.invalidActionRate.rate - without.overall.invalidActionRate.rate;
  const what = versus === 'none' ? 'memory benefit' : 'own notes benefit';
  const returns = unit
    ? `; ${unit.unit} by attempt ${returnBenefit(unit, withMemory, without)
        .map((d) => signed(meanInterval([d]), 1, 3))
        .join(' → ')}`
    : '';
  return (
    `${what} (${memory} − ${versus}), points, paired over ${benefit.pairs} meta-episodes (95% interval): ` +
    `${passAtKList(benefit)}; invalid moves ${signed(meanInterval([invalid]))}${returns}`
  );
}

/**
 * How many swapped notes read as the replaced ones (where own minus foreign notes cannot see reading), and
 * own minus foreign notes over the meta-episodes with a swapped note that differs.
 */
function swapsLine(swaps: ForeignNoteSwapsV1, differ: PairedPassBenefitV1 | undefined): string {
  const where = differ
    ? `; over the ${differ.pairs} meta-episodes with a swapped note that differs: ${passAtKList(differ)}`
    : '; no meta-episode had a swapped note that differs';
  return `foreign notes: ${swapsText(swaps, ' swapped notes')} read word for word as the meta-episode's own after the same outcome, which own minus foreign notes cannot see${where}`;
}

/** `pass@1 +0.0 [+0.0, +0.0], pass@2 …`: a paired benefit at every k, in points. */
function passAtKList(benefit: PairedPassBenefitV1): string {
  return benefit.passAtK.map((m, k) => `pass@${k + 1} ${signed(m)}`).join(', ');
}

/** The identification ceiling of the memory benefit at pass@K and the share of it the memory gained. */
function ceilingLine(ceiling: number, benefit: PairedPassBenefitV1): string {
  const k = benefit.passAtK.length;
  const share = ceilingShare(benefit.passAtK[k - 1]!.mean, ceiling);
  return (
    `identification ceiling: at most ${(100 * ceiling).toFixed(1)} points of pass@${k} from identifying the opponent ` +
    `(the no-memory losses against opponents that play one move for sure and lose to their best response); the memory added ${signed(benefit.passAtK[k - 1]!)}${share ? `, ${share} of it` : ''}`
  );
}

/** How many invalid moves repeat the refused move just before them (the state did not change). */
function repeatsLine(m: MetaEpisodeMetricsV1): string | undefined {
  const r = m.overall.repeatedInvalidRate;
  if (!r || r.trials === 0) return undefined;
  return `invalid moves (${r.trials}): ${pct(r.rate)} repeat, word for word, the refused move just before them`;
}

/** What the policy's notes hold: the share of each attempt's facts they state, and how many the budget cut. */
function notesLine(m: MetaEpisodeMetricsV1): string | undefined {
  const { noteRecall, cutReflectionRate, reflectTurns } = m.overall;
  if (noteRecall === undefined) return undefined;
  const cut = cutReflectionRate ? `, ${pct(cutReflectionRate.rate)} cut by the note budget` : '';
  return `notes (${reflectTurns}): state ${pct(noteRecall)} of their attempt's facts (events and reveal)${cut}`;
}

/**
 * Per opponent and overall: pass@k per attempt (with its interval per opponent), last-attempt draws,
 * invalid moves and, with a return unit, the mean return of each attempt played in that unit.
 */
function evalTable(m: MetaEpisodeMetricsV1, unit: ReturnUnitV1 | undefined): string {
  const returns = (s: MetricsSummaryV1): Cell[] =>
    unit
      ? [
          returnsIn(unit, s)
            .map((r) => r.toFixed(3))
            .join(' → '),
        ]
      : [];
  const rows: Cell[][] = Object.entries(m.byOpponent).map(([id, s]) => [
    id,
    s.metaEpisodes,
    ...s.perAttempt.map((a) => `${pct(a.passAtK.rate)} [${pct(a.passAtK.low)}, ${pct(a.passAtK.high)}]`),
    pct(s.perAttempt.at(-1)?.draw.rate ?? 0),
    pct(s.invalidActionRate.rate),
    ...returns(s),
  ]);
  const k = m.attempts;
  const table = formatTable(
    [
      'opponent',
      'episodes',
      ...Array.from({ length: k }, (_, i) => `pass@${i + 1}`),
      `draws (attempt ${k})`,
      'invalid',
      ...(unit ? [`${unit.unit}, attempt 1 → ${k}`] : []),
    ],
    [
      ...rows,
      [
        'overall',
        m.overall.metaEpisodes,
        ...m.overall.perAttempt.map((a) => pct(a.passAtK.rate)),
        pct(m.overall.perAttempt.at(-1)?.draw.rate ?? 0),
        pct(m.overall.invalidActionRate.rate),
        ...returns(m.overall),
      ],
    ],
  );
  // With early stop an attempt after a success is not played: its mean is over the failed ones only.
  const stopped = m.overall.perAttempt.some((a) => a.played < m.overall.metaEpisodes);
  return unit && stopped
    ? `${table}\n(early stop: attempt k > 1 is played only after failed attempts; its ${unit.unit} are theirs)`
    : table;
}
