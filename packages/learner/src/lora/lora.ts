/**
 * LoRA: low-rank adapters on chosen linear projections, y = W·x + (alpha/rank)·B·(A·x), with A [rank, in]
 * (random) and B [out, rank] (zeros, so training starts from the base model). Adapter names follow PEFT:
 * `<linear>.lora_A.weight`, `<linear>.lora_B.weight`. `mergeLora` folds them into the base weights.
 */

import { ConfigError, type Rng } from '@mage-rl/core';
import type { Graph } from '../graph/graph';
import type { Tensor } from '../graph/tensor';
import type { ModelConfig } from '../model/config';
import { fillNormal, type ParamSpec, type ParamStore, paramSpecs } from '../model/params';
import type { LinearHook } from '../model/transformer';

export type LoraTarget = 'q_proj' | 'k_proj' | 'v_proj' | 'o_proj' | 'gate_proj' | 'up_proj' | 'down_proj';

export const ALL_LORA_TARGETS: readonly LoraTarget[] = [
  'q_proj',
  'k_proj',
  'v_proj',
  'o_proj',
  'gate_proj',
  'up_proj',
  'down_proj',
];

export interface LoraOptions {
  readonly rank: number;
  /** Scale numerator: the update is multiplied by alpha / rank (default alpha = rank). */
  readonly alpha?: number;
  /** Projections that get adapters (default q, k, v, o). */
  readonly targets?: readonly LoraTarget[];
}

const targetsOf = (o: LoraOptions) => o.targets ?? (['q_proj', 'k_proj', 'v_proj', 'o_proj'] as const);
export const loraScale = (o: LoraOptions): number => (o.alpha ?? o.rank) / o.rank;

function validate(o: LoraOptions): void {
  if (!Number.isInteger(o.rank) || o.rank <= 0)
    throw new ConfigError(`LoRA rank must be a positive integer, got ${o.rank}.`, { path: 'lora.rank' });
  for (const t of targetsOf(o)) {
    if (!ALL_LORA_TARGETS.includes(t)) {
      throw new ConfigError(`Unknown LoRA target '${t}'; known: ${ALL_LORA_TARGETS.join(', ')}.`, {
        path: 'lora.targets',
      });
    }
  }
}

/** The base linear layers that get adapters, with their [out, in] shapes. */
function targetLinears(config: ModelConfig, o: LoraOptions): { name: string; out: number; in: number }[] {
  validate(o);
  const targets = new Set<string>(targetsOf(o));
  return paramSpecs(config)
    .filter((s) => s.kind === 'linear' && s.name.endsWith('.weight') && s.name !== 'lm_head.weight')
    .map((s) => ({
      name: s.name.slice(0, -'.weight'.length),
      out: s.shape[0] as number,
      in: s.shape[1] as number,
    }))
    .filter((l) => targets.has(l.name.split('.').pop() as string));
}

export function loraSpecs(config: ModelConfig, o: LoraOptions): ParamSpec[] {
  return targetLinears(config, o).flatMap((l) => [
    { name: `${l.name}.lora_A.weight`, shape: [o.rank, l.in], kind: 'linear' as const },
    { name: `${l.name}.lora_B.weight`, shape: [l.out, o.rank], kind: 'linear' as const },
  ]);
}

/** A ~ N(0, 1/in), B = 0. */
export function initLora(config: ModelConfig, o: LoraOptions, rng: Rng): ParamStore {
  const store: ParamStore = new Map();
  for (const s of loraSpecs(config, o)) {
    const data = new Float32Array((s.shape[0] as number) * (s.shape[1] as number));
    if (s.name.endsWith('lora_A.weight'))
      fillNormal(rng.split(s.name), data, 1 / Math.sqrt(s.shape[1] as number));
    store.set(s.name, data);
  }
  return store;
}

/** Adds adapter inputs to `g` and returns them with the hook that applies them. */
export function addLoraInputs(
  g: Graph,
  config: ModelConfig,
  o: LoraOptions,
): { params: Record<string, Tensor>; hook: LinearHook } {
  const params: Record<string, Tensor> = {};
  for (const s of loraSpecs(config, o)) params[s.name] = g.input(s.name, s.shape, g.float);
  const scale = g.scalar(loraScale(o), g.float);
  const hook: LinearHook = (name, x, y) => {
    const a = params[`${name}.lora_A.weight`];
    const b = params[`${name}.lora_B.weight`];
    if (a === undefined || b === undefined) return y;
    const down = g.matmul(x, g.transpose(a, [1, 0]));
    return g.add(y, g.mul(g.matmul(down, g.transpose(b, [1, 0])), scale));
  };
  return { params, hook };
}

/** Base weights with every adapter folded in: W + (alpha/rank)·B·A. Returns new arrays for changed weights. */
export function mergeLora(
  config: ModelConfig,
  o: LoraOptions,
  base: ReadonlyMap<string, Float32Array>,
  adapters: ReadonlyMap<string, Float32Array>,
): ParamStore {
  const out: ParamStore = new Map(base);
  const s = loraScale(o);
  for (const l of targetLinears(config, o)) {
    const w = base.get(`${l.name}.weight`);
    const a = adapters.get(`${l.name}.lora_A.weight`);
    const b = adapters.get(`${l.name}.lora_B.weight`);
    if (w === undefined || a === undefined || b === undefined) continue;
    const merged = Float32Array.from(w);
    const r = o.rank;
    for (let i = 0; i < l.out; i++) {
      for (let k = 0; k < r; k++) {
        const bik = (b[i * r + k] as number) * s;
        if (bik === 0) continue;
        for (let j = 0; j < l.in; j++)
          merged[i * l.in + j] = (merged[i * l.in + j] as number) + bik * (a[k * l.in + j] as number);
      }
    }
    out.set(`${l.name}.weight`, merged);
  }
  return out;
}
