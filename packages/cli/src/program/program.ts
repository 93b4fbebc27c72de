import { Command, CommanderError } from 'commander';
import { COMMANDS } from '../commands';
import { type Io, processIo, reportError } from './error-boundary';
import { CLI_VERSION } from './version';

/** Builds the `mage` command tree. Each command module adds itself here explicitly (no side effects). */
export function buildProgram(io: Io): Command {
  const program = new Command('mage')
    .description('MAGE meta-reinforcement learning for language agents')
    .version(CLI_VERSION, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  program.showHelpAfterError('(run `mage --help` for the commands)');
  for (const add of COMMANDS) add(program, io);
  return program;
}

/** Runs the CLI on `argv` (without the node and script entries) and returns the exit code. */
export async function runCli(argv: readonly string[], io: Io = processIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    return reportError(error, io);
  }
}
