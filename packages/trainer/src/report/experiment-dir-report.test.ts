import { join } from 'node:path';
import { useTempDir } from '@mage-rl/core/testing/vitest';
import { describe, expect, it } from 'vitest';
import type { ExperimentEvalV1 } from '../experiment/experiment';
import { callLines, evaluationCodeLines, machineLine, reportExperiment } from './experiment-dir-report';

describe('experiment directory reports', () => {
  const tmp = useTempDir('mage-experiment-report-');

  it('lists the calls with their commits, or the commands of directories written before calls were recorded', () => {
    expect(
      callLines({
        calls: [
          {
            command: 'mage experiment --seeds 1',
            commit: '0123456789abcdef',
            started: '2026-01-01T00:00:00Z',
          },
          { command: null, commit: null, started: '2026-01-02T00:00:00Z' },
        ],
      }),
    ).toEqual([
      'Calls (in order):',
      '',
      '- `mage experiment --seeds 1` at commit `0123456`, 2026-01-01T00:00:00Z',
      '- `not recorded` at commit `unknown`, 2026-01-02T00:00:00Z',
    ]);
    expect(callLines({ commands: ['mage experiment', 'mage experiment --report-only'] })).toEqual([
      'Commands: `mage experiment`; `mage experiment --report-only`',
    ]);
    expect(callLines({})).toEqual(['Commands: not recorded']);
    // Calls that record their code: a dirty tree, an installed package.
    const packages = { '@mage-rl/trainer': '0.3.0' };
    expect(
      callLines({
        calls: [
          {
            command: 'a',
            commit: 'f'.repeat(40),
            code: { commit: 'f'.repeat(40), dirty: true, packages },
            started: 't1',
          },
          {
            command: 'b',
            commit: null,
            code: { commit: null, dirty: null, noCommit: 'installed package', packages },
            started: 't2',
          },
        ],
      }).slice(2),
    ).toEqual([
      '- `a` at commit `fffffff` (dirty), t1',
      '- `b` with no commit (installed package; @mage-rl/trainer 0.3.0), t2',
    ]);
  });

  it('names the code of the evaluations, and warns when they come from several versions', () => {
    const record = (code?: object) =>
      ({ label: 'x', ...(code ? { code } : {}) }) as unknown as ExperimentEvalV1;
    const packages = { '@mage-rl/trainer': '0.1.0' };
    const at = (c: string) => ({ commit: c.repeat(40), dirty: false, packages });
    expect(evaluationCodeLines([])).toEqual([]);
    expect(evaluationCodeLines([record(at('a')), record(at('a'))])).toEqual([
      'Code of the evaluations: commit aaaaaaa.',
      '',
    ]);
    const [mixed] = evaluationCodeLines([record(at('a')), record(at('b')), record(at('a')), record()]);
    expect(mixed).toMatch(
      /^\*\*Code of the evaluations: 3 versions\*\* — commit aaaaaaa \(2 files\); commit bbbbbbb \(1 file\); commit unknown \(1 file\)\. Numbers computed by different code are not comparable/,
    );
  });

  it('names the machine, of directories written before it had SIMD flags and the runtime too', () => {
    const old = { cpu: 'AMD EPYC', cores: 2, memoryGiB: 8, node: 'v20.19.0', platform: 'linux-x64' };
    expect(machineLine({ machine: { ...old, commit: '0123abc' } })).toBe(
      'Machine: AMD EPYC, 2 cores, 8 GiB, linux-x64, Node v20.19.0, commit 0123abc',
    );
    expect(
      machineLine({
        machine: { ...old, simd: ['avx2', 'fma'], runtime: { 'onnxruntime-node': '1.30.0' }, commit: null },
      }),
    ).toBe(
      'Machine: AMD EPYC, 2 cores, 8 GiB, SIMD avx2 fma, linux-x64, Node v20.19.0, onnxruntime-node 1.30.0',
    );
  });

  it('refuses a directory without experiment.json, naming the option', async () => {
    await expect(reportExperiment(join(tmp.path, 'none'))).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      context: { path: 'outDir' },
    });
  });
});
