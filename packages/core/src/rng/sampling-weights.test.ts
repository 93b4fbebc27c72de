import { describe, expect, it } from 'vitest';
import { samplingWeights } from './sampling-weights';

const logprobs = [Math.log(0.5), Math.log(0.3), Math.log(0.2)];

describe('samplingWeights', () => {
  it('is the softmax at the temperature, relative to the most likely candidate', () => {
    expect(samplingWeights(logprobs, 1).map((w) => +w.toFixed(12))).toEqual([1, 0.6, 0.4]);
    expect(samplingWeights(logprobs, 0.5).map((w) => +w.toFixed(12))).toEqual([1, 0.36, 0.16]);
  });

  it('keeps the shortest prefix whose mass reaches top-p, and at least one candidate', () => {
    expect(samplingWeights(logprobs, 1, 0.5)).toHaveLength(1);
    expect(samplingWeights(logprobs, 1, 0.6)).toHaveLength(2);
    expect(samplingWeights(logprobs, 1, 0.81)).toHaveLength(3);
    expect(samplingWeights(logprobs, 1, 0)).toHaveLength(1);
    expect(samplingWeights(logprobs, 1, 1)).toHaveLength(3);
  });

  it('refuses an empty candidate list', () => {
    expect(() => samplingWeights([], 1)).toThrow();
  });
});
