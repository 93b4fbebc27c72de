import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured, useTempDir } from '../testing/cli.test-helper';

const tmp = useTempDir('mage-eval-');

describe('mage eval input errors', () => {
  it('names a --policy path that does not exist or is a file, and what --policy takes', async () => {
    const missing = join(tmp.path, 'no-such-run');
    const r = await runCaptured(['eval', '--policy', missing, '--preset', 'smoke']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`--policy '${missing}': no such directory`);
    expect(r.err).toContain("--policy takes 'teacher'");
    const file = join(tmp.path, 'model.txt');
    await writeFile(file, 'x');
    const onFile = await runCaptured(['eval', '--policy', file, '--preset', 'smoke']);
    expect(onFile.err).toMatch(/is a file, not a directory/);
  });

  it('states the range of mcts-N when the id is out of range', async () => {
    for (const id of ['mcts-0', 'mcts-99999999']) {
      const r = await runCaptured(['eval', '--opponents', id, '--preset', 'smoke', '--episodes', '1']);
      expect(r.code).toBe(1);
      expect(r.err).toContain('mcts-<N> (N = 1..9999999 simulations per move)');
    }
  });
});
