// The code behind `mage eval --json` files, for the aggregation scripts: each file's commit (from its
// `code` record; `commit unknown` for files written before evaluations recorded it), and the refusal to mix
// commits in one table unless asked (`--mixed-commits`): numbers from different code are not comparable.

/**
 * The version a file's code names: `<commit>` (`+dirty` when tracked files differed, `+stale` when the
 * build that ran was older than its sources), `no commit (…)`, or `commit unknown`.
 */
export function commitOf(record) {
  const code = record && typeof record === 'object' ? record.code : undefined;
  if (code && typeof code.commit === 'string' && code.commit !== '') {
    const stale = Array.isArray(code.staleBuild) && code.staleBuild.length > 0 ? '+stale' : '';
    return `${code.commit.slice(0, 12)}${code.dirty === true ? '+dirty' : ''}${stale}`;
  }
  if (code && typeof code.noCommit === 'string') {
    const versions = Object.entries(code.packages ?? {}).map(([name, v]) => `${name} ${v}`);
    return `no commit (${[code.noCommit, ...versions].join(', ')})`;
  }
  return 'commit unknown';
}

/** `argv` without `--mixed-commits`, and whether it was there. */
export function mixedCommitsFlag(argv) {
  return { args: argv.filter((a) => a !== '--mixed-commits'), mixed: argv.includes('--mixed-commits') };
}

/**
 * Checks that `files` (`[{ path, record }]`) come from one version of the code: writes a line naming it to
 * stderr and returns; with several, writes each with its files and exits 1 unless `mixed`, then says the
 * table mixes them.
 */
export function checkCommits(files, mixed) {
  const byCommit = new Map();
  for (const { path, record } of files) {
    const commit = commitOf(record);
    byCommit.set(commit, [...(byCommit.get(commit) ?? []), path]);
  }
  const list = [...byCommit.entries()].map(([commit, paths]) => `  ${commit}: ${paths.length} file(s): ${paths.join(', ')}`);
  if (byCommit.size <= 1) {
    const [commit] = byCommit.keys();
    if (commit !== undefined) process.stderr.write(`code: ${commit} (${files.length} file(s))\n`);
    return;
  }
  if (!mixed) {
    process.stderr.write(
      `refused: the files come from ${byCommit.size} versions of the code, whose numbers are not comparable:\n${list.join('\n')}\nEvaluate them again at one commit, or pass --mixed-commits to put them in one table anyway.\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`--mixed-commits: the table mixes ${byCommit.size} versions of the code:\n${list.join('\n')}\n`);
}
