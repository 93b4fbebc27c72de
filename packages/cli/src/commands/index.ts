import type { Command } from 'commander';
import type { Io } from '../program/error-boundary';
import { adaptationCeilingCommand } from './adaptation-ceiling';
import { bestResponseCommand } from './best-response';
import { dashboardCommand } from './dashboard';
import { envServeCommand } from './env-serve';
import { evalCommand } from './eval';
import { experimentCommand } from './experiment';
import { exportCommand } from './export';
import { matchCommand } from './match';
import { pretrainCommand } from './pretrain';
import { reportCommand } from './report';
import { serveCommand } from './serve';
import { sokobanCommand } from './sokoban';
import { solveCommand } from './solve';
import { trainCommand } from './train';

/** A CLI command module: adds its subcommand to the program. */
export type CommandModule = (program: Command, io: Io) => void;

/**
 * Every command of `mage`, registered explicitly (no import side effects). Add one line per command
 * module.
 */
export const COMMANDS: readonly CommandModule[] = [
  sokobanCommand,
  solveCommand,
  bestResponseCommand,
  adaptationCeilingCommand,
  matchCommand,
  reportCommand,
  pretrainCommand,
  trainCommand,
  evalCommand,
  experimentCommand,
  exportCommand,
  serveCommand,
  envServeCommand,
  dashboardCommand,
];
