// The memory demo's evaluation (scripts/demo.mjs): the warm start and the policy MAGE trained from it play
// the same tasks three ways — with their own notes, with no memory (K independent attempts), and with each
// earlier note taken from another player's meta-episode (foreign notes) — and every comparison is paired
// over those tasks (a 95% t-interval over the per-task differences of pass@k). It writes report.md and
// report.json into the run directory and returns the lines to print and a verdict.
//
// It uses the built packages (`@mage-rl/trainer`'s `createTrainer().evaluate`, core's `pairedPassBenefit`)
// because `mage eval` prints no per-task results, which the comparison of two policies needs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = (pkg) => new URL(`../packages/${pkg}/dist/index.js`, import.meta.url).href;

/** `+12.3 [+8.1, +16.5]` (points) from a mean interval of differences in [0, 1]. */
function pts(m) {
  const f = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
  return `${f(m.mean)} [${f(m.low)}, ${f(m.high)}]`;
}

const pct = (x) => (100 * x).toFixed(1);

/** pass@k rates of a metrics summary, in percent. */
const passRates = (metrics) => metrics.overall.perAttempt.map((a) => a.passAtK.rate);

/**
 * Evaluates `warmStart` (a model directory) and `run` (a run directory) on `episodes` tasks of the evaluation
 * seed `seed`, with the MAGE prompts and reflection notes; foreign notes from `noteDonor` ('teacher', or
 * each policy's own other meta-episodes when undefined). Writes `report.md` and `report.json` into `outDir`.
 */
export async function evaluateReading(options) {
  const {
    env,
    envPackage,
    preset,
    overrides,
    warmStart,
    run,
    episodes,
    seed,
    noteDonor,
    outDir,
    title,
    log,
  } = options;
  const { createTrainer } = await import(dist('trainer'));
  const { pairedPassBenefit, storedPath } = await import(dist('core'));
  // An env package (a path) joins the env registry the trainer reads, as `mage --env-package` does.
  if (envPackage !== undefined) await (await import(dist('recipes'))).loadEnvPackage(envPackage);
  const trainer = createTrainer({ env, preset, overrides });
  const evaluate = async (label, policy) => {
    const started = Date.now();
    const r = await trainer.evaluate({
      policy,
      method: 'mage',
      episodes,
      seed,
      foreignNotes: true,
      ...(noteDonor === undefined ? {} : { noteDonor }),
    });
    log(
      `evaluated ${label}: ${episodes} tasks with notes, with no memory and with foreign notes (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
    return r;
  };
  const ws = await evaluate('the warm start', warmStart);
  const mage = await evaluate('MAGE', run);
  const k = ws.result.metrics.attempts;
  const versusWarmStart = pairedPassBenefit(mage.result.batch.slots, ws.result.batch.slots, k);
  const policies = [
    ['warm start', ws],
    ['MAGE', mage],
  ];
  const head = Array.from({ length: k }, (_, i) => `pass@${i + 1}`);
  const passTable = [
    `| policy | memory | ${head.map((h) => `${h} %`).join(' | ')} |`,
    `|---|---|${'---:|'.repeat(k)}`,
    ...policies.flatMap(([label, r]) => [
      `| ${label} | own notes | ${passRates(r.result.metrics).map(pct).join(' | ')} |`,
      `| ${label} | no memory | ${passRates(r.withoutMemory.result.metrics).map(pct).join(' | ')} |`,
      `| ${label} | foreign notes | ${passRates(r.foreignNotes.result.metrics).map(pct).join(' | ')} |`,
    ]),
  ];
  const differences = [
    ['MAGE − warm start, both with their own notes', versusWarmStart],
    ...policies.flatMap(([label, r]) => [
      [`${label}: own notes − no memory (memory benefit)`, r.withoutMemory.benefit],
      [`${label}: own notes − foreign notes (reading)`, r.foreignNotes.benefit],
    ]),
  ];
  const diffTable = [
    `| paired over ${versusWarmStart.pairs} tasks (points, 95% interval) | ${head.join(' | ')} |`,
    `|---|${'---:|'.repeat(k)}`,
    ...differences.map(([label, b]) => `| ${label} | ${b.passAtK.map(pts).join(' | ')} |`),
  ];
  const gain = versusWarmStart.passAtK[k - 1];
  const reading = mage.foreignNotes.benefit.passAtK[k - 1];
  const reads = gain.low > 0 && reading.low > 0;
  const at = `pass@${k}`;
  const verdict = reads
    ? `MAGE reads its notes: own − foreign notes ${pts(reading)} points at ${at}, and ${pct(passRates(mage.result.metrics)[k - 1])}% against the warm start's ${pct(passRates(ws.result.metrics)[k - 1])}% with notes (${pts(gain)}), over ${versusWarmStart.pairs} paired tasks`
    : `MAGE did not show reading on this seed: own − foreign notes ${pts(reading)} points at ${at}, MAGE − warm start ${pts(gain)} (both intervals must be above 0)`;
  const donor =
    noteDonor === 'teacher'
      ? "the warm-start teacher's play of the same tasks"
      : (noteDonor ?? "the policy's own other meta-episodes");
  const md = [
    `# ${title}`,
    '',
    `Warm start \`${storedPath(warmStart)}\`, MAGE run \`${storedPath(run)}\`; ${episodes} evaluation tasks (seed \`${seed}\`), ${k} attempts,`,
    `MAGE's prompts and reflection notes; foreign notes from ${donor}.`,
    '',
    ...passTable,
    '',
    ...diffTable,
    '',
    verdict,
    '',
  ].join('\n');
  writeFileSync(join(outDir, 'report.md'), md);
  const summary = (r) => ({
    withNotes: r.result.metrics,
    noMemory: r.withoutMemory.result.metrics,
    foreignNotes: r.foreignNotes.result.metrics,
    memoryBenefit: r.withoutMemory.benefit,
    ownMinusForeign: r.foreignNotes.benefit,
    swaps: r.foreignNotes.swaps,
  });
  const json = {
    format: 'mage-rl/demo-reading@1',
    warmStart: storedPath(warmStart),
    run: storedPath(run),
    episodes,
    seed,
    noteDonor: noteDonor ?? null,
    code: mage.code,
    machine: mage.machine,
    warmStartEvaluation: summary(ws),
    mageEvaluation: summary(mage),
    mageMinusWarmStart: versusWarmStart,
    reads,
    verdict,
  };
  writeFileSync(join(outDir, 'report.json'), `${JSON.stringify(json, null, 2)}\n`);
  return { lines: [...passTable, '', ...diffTable], verdict, reads };
}
