import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { capture } from '../testing/cli.test-helper';
import { buildProgram } from './program';

/** Every runnable command of `mage`, subcommands included (`sokoban generate`), with its path. */
function leaves(command: Command, path: string[] = []): { path: string; command: Command }[] {
  const subs = command.commands as Command[];
  if (subs.length === 0) return [{ path: path.join(' '), command }];
  return subs.flatMap((c) => leaves(c, [...path, c.name()]));
}

const help = (name: string) => {
  const c = leaves(buildProgram(capture().io)).find((l) => l.path === name);
  if (!c) throw new Error(`no command ${name}`);
  return c.command.helpInformation();
};

describe('mage --help, per command', () => {
  it('every command takes --json', () => {
    const missing = leaves(buildProgram(capture().io))
      .filter(({ command }) => !command.options.some((o) => o.long === '--json'))
      .map((l) => l.path);
    expect(missing).toEqual([]);
  });

  it('train and experiment list only the methods that train; eval lists them all', () => {
    const methods = (name: string, flag: string) =>
      new RegExp(`${flag} <ids?> (.*?) \\(default`).exec(help(name).replace(/\s+/g, ' '))?.[1] ?? '';
    expect(methods('train', '--method')).toBe(
      'training method: grpo | gigpo | lamer | mage (the others need no training: mage eval)',
    );
    expect(methods('experiment', '--methods')).toBe(
      'comma-separated: warm-start (the untrained warm start, evaluated) | grpo | gigpo | lamer | mage',
    );
    expect(methods('eval', '--method')).toMatch(/react \| reflexion \| memento \| a-mem \| grpo/);
  });

  it('pretrain lists the envs with a warm-start teacher, env-serve the in-process ones; train and experiment all', () => {
    for (const name of ['pretrain', 'env-serve']) {
      const text = help(name).replace(/\s+/g, ' ');
      expect(text).toMatch(
        /tictactoe \| kuhn-poker \| sokoban \| treasure \| doors \| rps \| tictactoe-frozen, or the env of --env-package/,
      );
      // (env-serve's --protocol names the WebShop dialect: only the env lists are checked)
      expect(text).not.toMatch(/\| (alfworld|webshop|openenv)/);
    }
    for (const name of ['train', 'experiment']) {
      expect(help(name).replace(/\s+/g, ' ')).toMatch(
        /sokoban \| treasure \| doors \| rps \| tictactoe-frozen \| alfworld \| webshop \| openenv/,
      );
    }
  });
});
