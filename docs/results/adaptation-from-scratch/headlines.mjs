// The top-level README's results table with every interval (this folder's README, "Headlines"), from the
// committed `mage eval --json --foreign-notes` files:
//   node headlines.mjs [--mixed-commits]        (in this folder)
// Per row, mean over seeds with a 95% t-interval over seeds: MAGE's pass@3 with its notes, its memory benefit,
// own − foreign, MAGE − warm start at pass@3 (each with its own notes, paired by seed), pass@3 with no memory
// for MAGE's weights and for the warm start's, and MAGE's memory benefit above GiGPO's and GRPO's (paired by
// seed). Then the per-seed values. A row's files are in this folder or the row's `dir` (another results
// folder). Checks that each MAGE run (`runs/<run>-s<seed>/config.json`, its `warmStartDir`) started from
// the warm start evaluated beside it; refuses a row whose files come from different commits (each file's
// `code`) unless --mixed-commits. Rows may come from different commits: each is one experiment.
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { checkCommits, mixedCommitsFlag } from './commits.mjs';

const here = new URL('.', import.meta.url).pathname;
const { args, mixed } = mixedCommitsFlag(process.argv.slice(2));
if (args.length > 0) {
  console.error(`headlines.mjs takes no arguments but --mixed-commits (got ${args.join(' ')})`);
  process.exit(2);
}

// `mage`: MAGE's evaluation with its own notes as the foreign ones' donors; `foreign`: the evaluation whose
// own − foreign the row reports (Doors: the teacher's notes, `--note-donor teacher`); `run`: the MAGE runs.
const ROWS = [
  {
    // `mage train` with the env and the seed only (docs/results/shipped-defaults).
    task: 'Higher-Lower 1..6, one guess per attempt',
    seeds: [13, 14, 15, 16, 17],
    dir: '../shipped-defaults/',
    mage: 'mage',
    foreign: 'mage',
    run: 'higher-lower',
    warmStart: 'warm-start',
    gigpo: 'gigpo',
    grpo: 'grpo',
  },
  {
    task: 'Higher-Lower 1..5 (not tuned on)',
    seeds: [13, 14, 15],
    mage: 'higher-lower5-mage-return-klfix',
    foreign: 'higher-lower5-mage-return-klfix',
    run: 'higher-lower5-mage-return-klfix',
    warmStart: 'higher-lower5-warm-start',
    gigpo: 'higher-lower5-gigpo',
    grpo: 'higher-lower5-grpo',
  },
  {
    task: 'Doors, 3 doors',
    seeds: [13, 14, 15, 16, 17],
    mage: 'doors4x-mage-rerun',
    foreign: 'doors4x-mage-rerun-teacher-donor',
    run: 'doors4x-mage-rerun',
    warmStart: 'doors4x-warm-start-rerun',
    gigpo: 'doors4x-gigpo-rerun',
    grpo: 'doors4x-grpo-rerun',
  },
  {
    task: 'Treasure 3×3',
    seeds: [13, 14, 15],
    mage: 'treasure-opening-mage',
    foreign: 'treasure-opening-mage',
    run: 'treasure-opening-mage',
    warmStart: 'treasure-opening-warm-start',
    gigpo: 'treasure-opening-gigpo',
    grpo: 'treasure-opening-grpo',
  },
];

// Two-sided 95% Student t quantiles by degrees of freedom.
const T = { 1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262 };
function ci(xs) {
  const n = xs.length;
  const t = T[n - 1];
  if (t === undefined) throw new Error(`no t quantile for ${n} seeds`);
  const m = xs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (n - 1));
  const h = (t * sd) / Math.sqrt(n);
  return { m, lo: m - h, hi: m + h };
}

const minus = (s) => s.replace('-', '−');
const pts = (x) => {
  const s = (100 * x).toFixed(1);
  return minus(Number(s) > 0 ? `+${s}` : s === '-0.0' ? '0.0' : s);
};
const level = (x) => minus((100 * x).toFixed(1));
const withCi = (xs, f) => {
  const { m, lo, hi } = ci(xs);
  return `${f(m)} [${f(lo)}, ${f(hi)}]`;
};
const percent = (xs) => {
  const { m } = ci(xs);
  return m === 1 ? '100%' : `${level(m)}%`;
};
const mean = (xs) => pts(ci(xs).m);

function load(dir, prefix, seed) {
  const path = `${dir}evals/${prefix}-s${seed}.json`;
  if (!existsSync(`${here}${path}`)) throw new Error(`${path} is missing`);
  return { path, record: JSON.parse(readFileSync(`${here}${path}`, 'utf8')) };
}
const passAt3 = (play) => {
  const rate = play.overall.perAttempt[2]?.passAtK.rate;
  if (typeof rate !== 'number') throw new Error('an evaluation without a third attempt');
  return rate;
};
const benefitAt3 = (r) => r.memoryBenefit.passAtK[2].mean;
const ownMinusForeignAt3 = (r) => r.notesBenefit.passAtK[2].mean;

function warmStartOfRun(dir, run, seed) {
  const path = `${here}${dir}runs/${run}-s${seed}/config.json`;
  if (!existsSync(path)) throw new Error(`${dir}runs/${run}-s${seed}/config.json is missing`);
  const found = readFileSync(path, 'utf8').match(/"warmStartDir":\s*"([^"]+)"/);
  if (!found) throw new Error(`${dir}runs/${run}-s${seed}/config.json names no warmStartDir`);
  return basename(found[1]);
}

const rows = ROWS.map((row) => {
  const dir = row.dir ?? '';
  const files = [];
  const perSeed = row.seeds.map((seed) => {
    const [mage, foreign, warmStart, gigpo, grpo] = [
      row.mage,
      row.foreign,
      row.warmStart,
      row.gigpo,
      row.grpo,
    ].map((prefix) => load(dir, prefix, seed));
    files.push(mage, foreign, warmStart, gigpo, grpo);
    const trainedFrom = warmStartOfRun(dir, row.run, seed);
    if (trainedFrom !== basename(warmStart.record.policy)) {
      throw new Error(
        `${row.task}, seed ${seed}: the MAGE run started from ${trainedFrom}, ${warmStart.path} evaluates ${warmStart.record.policy}`,
      );
    }
    return {
      seed,
      notes: passAt3(mage.record.metrics),
      none: passAt3(mage.record.withoutMemory),
      benefit: benefitAt3(mage.record),
      ownMinusForeign: ownMinusForeignAt3(foreign.record),
      warmNotes: passAt3(warmStart.record.metrics),
      warmNone: passAt3(warmStart.record.withoutMemory),
      aboveGigpo: benefitAt3(mage.record) - benefitAt3(gigpo.record),
      aboveGrpo: benefitAt3(mage.record) - benefitAt3(grpo.record),
    };
  });
  const col = (key) => perSeed.map((s) => s[key]);
  process.stderr.write(`${row.task}: `);
  checkCommits(files, mixed);
  return { ...row, perSeed, col };
});

console.log(
  '| task | MAGE pass@3 | memory benefit (pts) | MAGE − warm start @3 (pts) | no memory @3, MAGE vs warm start (%) |',
);
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const { task, perSeed, col } of rows) {
  const gain = perSeed.map((s) => s.notes - s.warmNotes);
  console.log(
    `| ${task} | ${percent(col('notes'))} | ${withCi(col('benefit'), pts)} | ${withCi(gain, pts)} | ${withCi(col('none'), level)} vs ${withCi(col('warmNone'), level)} |`,
  );
}
console.log('\n| task | own − foreign (pts) | above GiGPO / GRPO (pts) |');
console.log('| --- | ---: | --- |');
for (const { task, col } of rows) {
  console.log(
    `| ${task} | ${withCi(col('ownMinusForeign'), pts)} | ${mean(col('aboveGigpo'))} / ${mean(col('aboveGrpo'))} |`,
  );
}
console.log(
  '\nPer seed, pass@3 (%): MAGE with notes / warm start with notes; MAGE no memory / warm start no memory',
);
for (const { task, perSeed } of rows) {
  const cells = perSeed.map(
    (s) => `s${s.seed} ${level(s.notes)} / ${level(s.warmNotes)}; ${level(s.none)} / ${level(s.warmNone)}`,
  );
  console.log(`- ${task}: ${cells.join(' · ')}`);
}
