import { createRng } from '@mage-rl/core';
import { generateRoom, solveSokoban } from '@mage-rl/envs/sokoban';
import { type BenchSection, measureRate } from '../harness';

/**
 * Sokoban rooms generated and solved per second (6×6, 2 boxes, optimal length 5..21): one unit is one
 * accepted room from the reverse-play generator (its retries and their BFS solves included) followed by
 * a fresh BFS solve of the accepted room (as the env's deadlock test and teachers do).
 */
const section: BenchSection = {
  title: 'Sokoban generation + solving',
  async run() {
    const results = [];
    for (const boxes of [2, 1, 3]) {
      let seed = 0;
      let moves = 0;
      let rooms = 0;
      const rate = measureRate(() => {
        const g = generateRoom(createRng(`bench/${boxes}/${seed++}`), { boxes });
        const solved = solveSokoban(g.state);
        moves += solved.solution?.length ?? 0;
        rooms++;
        return 1;
      });
      results.push({
        name: `sokoban 6x6 ${boxes} box${boxes === 1 ? '' : 'es'}: generate + solve`,
        value: rate,
        unit: 'rooms/s',
        ...(boxes === 2 ? { target: { value: 100, comparison: '>=' as const } } : {}),
        note: `mean optimal length ${(moves / rooms).toFixed(1)} moves`,
      });
    }
    return results;
  },
};
export default section;
