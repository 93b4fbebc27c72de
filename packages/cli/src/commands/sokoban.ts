/** `mage sokoban generate`: reverse-play Sokoban rooms with their BFS-optimal solution lengths. */

import { ConfigError, createRng } from '@mage-rl/core';
import { generateSokobanRooms } from '@mage-rl/envs/sokoban';
import type { Command } from 'commander';
import { printJson, printTable } from '../output/format';
import type { Io } from '../program/error-boundary';

function intOption(name: string, raw: unknown, min: number, max: number): number {
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`--${name} must be an integer from ${min} to ${max}, got '${String(raw)}'.`, {
      path: `sokoban.generate.${name}`,
      context: { value: String(raw), min, max },
    });
  }
  return value;
}

export const sokobanCommand = (program: Command, io: Io): void => {
  const sokoban = program.command('sokoban').description('Sokoban tools');
  sokoban
    .command('generate')
    .description('generate rooms by reverse play and print their optimal solution lengths')
    .option('--boxes <B>', 'boxes per room', '2')
    .option('--count <N>', 'number of rooms', '5')
    .option('--seed <S>', 'seed of the first room (room i uses seed S + i)', '1')
    .option('--size <W>', 'room width and height, outer walls included', '6')
    .option('--json', 'print a JSON array of { seed, room, boxes, optimalLength, solution }')
    .action((raw: { boxes: string; count: string; seed: string; size: string; json?: boolean }) => {
      const rooms = generateSokobanRooms({
        boxes: intOption('boxes', raw.boxes, 1, 6),
        count: intOption('count', raw.count, 1, 100_000),
        seed: intOption('seed', raw.seed, -(2 ** 31), 2 ** 31 - 1),
        size: intOption('size', raw.size, 4, 16),
        rngOf: createRng,
      });
      if (raw.json) {
        printJson(io, rooms);
        return;
      }
      for (const r of rooms) {
        io.stdout(
          `seed ${r.seed}: ${r.boxes} box${r.boxes === 1 ? '' : 'es'}, optimal ${r.optimalLength} moves\n`,
        );
        io.stdout(`${r.room.join('\n')}\nsolution: ${r.solution.join(', ')}\n\n`);
      }
      printTable(
        io,
        ['seed', 'boxes', 'optimal moves'],
        rooms.map((r) => [r.seed, r.boxes, r.optimalLength]),
      );
      io.stdout('symbols: # wall, _ floor, O target, X box, √ box on target, P player, S player on target\n');
    });
};
