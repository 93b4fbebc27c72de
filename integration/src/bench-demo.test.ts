import { describe, expect, it } from 'vitest';
import { profileDemo } from '../../bench/src/demo/profile-demo';
import { stageTable } from '../../bench/src/demo/stage-profiler';

// The small version of `pnpm bench demo`: the demo's pipeline at the smoke preset, one training
// iteration and one evaluation memory. Checks that every stage is seen and accounted, not its times.
describe('pnpm bench demo, smoke (slow)', () => {
  it('profiles the warm start, training and evaluation stage by stage', async () => {
    const profile = await profileDemo({
      preset: 'smoke',
      overrides: { train: { iterations: 1 } },
      evalMemories: ['reflection'],
    });
    const names = profile.stages.map((s) => s.stage);
    expect(names).toEqual([
      'warm start: teachers’ corpus',
      'warm start: tokenizer, model, epochs',
      'warm start: evaluation',
      'warm start: save',
      'experiment: set-up, warm start load',
      'evaluate warm-start (reflection)',
      'train: set-up (model, reference)',
      'train: rollout',
      'train: update',
      'train: evaluation, checkpoint',
      'after training: report, evaluation model load',
      'evaluate mage (reflection)',
    ]);
    const stage = (name: string) => profile.stages.find((s) => s.stage === name);
    for (const s of profile.stages) {
      expect(s.count, s.stage).toBe(1);
      expect(s.wallSeconds, s.stage).toBeGreaterThan(0);
      expect(s.cpuSeconds, s.stage).toBeGreaterThanOrEqual(0);
      expect(s.peakRssBytes, s.stage).toBeGreaterThan(0);
      expect(s.compileSeconds, s.stage).toBeLessThanOrEqual(s.wallSeconds);
    }
    // Sessions are compiled and run where the model works, and nowhere else.
    for (const name of ['warm start: tokenizer, model, epochs', 'train: rollout', 'train: update']) {
      expect(stage(name)?.compiles, name).toBeGreaterThan(0);
      expect(stage(name)?.runs, name).toBeGreaterThan(0);
    }
    expect(stage('warm start: teachers’ corpus')?.runs).toBe(0);
    expect(profile.evaluations.map((e) => `${e.label}/${e.memory}`)).toEqual([
      'warm-start/reflection',
      'mage/reflection',
    ]);
    expect(stageTable(profile.stages).split('\n')).toHaveLength(profile.stages.length + 3);
  }, 180_000);
});
