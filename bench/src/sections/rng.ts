import { createRng } from '@mage-rl/core';
import { type BenchSection, measureRate } from '../harness';

const section: BenchSection = {
  title: 'Seeded RNG',
  async run() {
    const rng = createRng(1);
    const rate = measureRate(() => {
      let x = 0;
      for (let i = 0; i < 10_000; i++) x += rng.next();
      return x >= 0 ? 10_000 : 0;
    });
    return [{ name: 'rng.next() (xoshiro128**)', value: rate, unit: 'draws/s' }];
  },
};
export default section;
