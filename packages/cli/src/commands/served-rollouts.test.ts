import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runJson, saveTinyModel, useTempDir } from '../testing/cli.test-helper';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));

/** `mage serve` in a second process (sources through tsx); resolves with its API URL. */
function serveInChild(
  dir: string,
  name: string,
  adapterDir: string,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@mage-rl/source',
      '--import',
      'tsx',
      join(repo, 'packages/cli/src/bin.ts'),
      'serve',
      dir,
      '--port',
      '0',
      '--served-model-name',
      name,
      '--adapter-dir',
      adapterDir,
    ],
    { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(/at (http:\/\/\S+\/v1)/);
      if (m) resolve({ child, url: m[1] as string });
    });
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('exit', (code) => reject(new Error(`mage serve exited with ${code}: ${err}`)));
  });
}

const records = async (runDir: string) =>
  (await readFile(join(runDir, 'metrics.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string; iteration: number });

describe('rollout.backend openai: rollouts through `mage serve` in a second process (slow)', () => {
  const tmp = useTempDir('mage-served-rollouts-');
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('trains two smoke iterations, pushing the LoRA adapter after each update; records match an in-process run in kind', async () => {
    const dir = await saveTinyModel(join(tmp.path, 'tiny'), 4);
    const served = await serveInChild(dir, 'tiny', tmp.path);
    child = served.child;

    const common = [
      'train',
      '--env',
      'tictactoe',
      '--method',
      'mage',
      '--preset',
      'smoke',
      '--seed',
      '3',
      '--model',
      dir,
    ];
    const localRun = join(tmp.path, 'local');
    const remoteRun = join(tmp.path, 'remote');
    await runJson([...common, '--run-dir', localRun]);
    await runJson([
      ...common,
      '--run-dir',
      remoteRun,
      '--set',
      'rollout.backend=openai',
      `rollout.openai.baseURL=${served.url}`,
      'rollout.openai.model=tiny',
    ]);

    const a = await records(localRun);
    const b = await records(remoteRun);
    expect(b.map((r) => [r.type, r.iteration])).toEqual(a.map((r) => [r.type, r.iteration]));
    for (const [i, r] of b.entries())
      expect(Object.keys(r).sort()).toEqual(Object.keys(a[i] as object).sort());
    // Iteration 0 samples from the same weights (a fresh adapter is zero) with the same request seeds:
    // its rollout is the in-process one, number for number. Later iterations differ (LoRA vs full update).
    const firstRollout = (rs: typeof a) => {
      const found: Record<string, unknown> = rs.find((r) => r.type === 'rollout' && r.iteration === 0) ?? {};
      const { timing: _timing, ...rest } = found;
      return rest;
    };
    expect(firstRollout(b)).toEqual(firstRollout(a));
    const updates = b.filter((r) => r.type === 'update') as unknown as {
      tokens: number;
      loss: number | null;
    }[];
    expect(updates).toHaveLength(2);
    for (const u of updates) {
      expect(u.tokens).toBeGreaterThan(0);
      expect(u.loss === null || Number.isFinite(u.loss)).toBe(true);
    }
    // The adapter was pushed: the server lists it, and the run's checkpoints carry LoRA adapters.
    const models = (await (await fetch(`${served.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['tiny', 'tiny-mage-lora']);
    expect(await readdir(join(remoteRun, 'served-adapter'))).toEqual(expect.arrayContaining(['v0', 'v1']));
    const ck = JSON.parse(
      await readFile(join(remoteRun, 'checkpoints', 'iter-000001', 'checkpoint.json'), 'utf8'),
    );
    expect(ck.metadata.lora).toMatchObject({ rank: 8 });
  }, 600_000);
});
