/**
 * LoRA: low-rank adapters on chosen linear projections, y = W·x + (alpha/rank)·B·(A·x), with A [rank, in]
 * (random) and B [out, rank] (zeros, so training starts from the base model). Adapter names follow PEFT:
 * `<linear>.lora_A.weight`, `<linear>.lora_B.weight`. `mergeLora` folds them into the base weights.
 */

import { ConfigError, type Rng } from '@mage-rl/core';
import type { Graph } from '../graph/graph';
import { dimAt, type Tensor } from '../graph/tensor';
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

/** A base linear layer that gets adapters: its name (without `.weight`), [out, in] and adapter names. */
interface TargetLinear {
  readonly name: string;
  readonly out: number;
  readonly in: number;
  /** `<linear>.lora_A.weight` [rank, in]. */
  readonly a: string;
  /** `<linear>.lora_B.weight` [out, rank]. */
  readonly b: string;
}

/** The base linear layers that get adapters, with their [out, in] shapes. */
function targetLinears(config: ModelConfig, o: LoraOptions): TargetLinear[] {
  validate(o);
  const targets = new Set<string>(targetsOf(o));
  return paramSpecs(config)
    .filter((s) => s.kind === 'linear' && s.name.endsWith('.weight') && s.name !== 'lm_head.weight')
    .map((s) => {
      const name = s.name.slice(0, -'.weight'.length);
      const out = dimAt(s.shape, 0);
      return { name, out, in: dimAt(s.shape, 1), a: `${name}.lora_A.weight`, b: `${name}.lora_B.weight` };
    })
    .filter((l) => targets.has(l.name.slice(l.name.lastIndexOf('.') + 1)));
}

export function loraSpecs(config: ModelConfig, o: LoraOptions): ParamSpec[] {
  return targetLinears(config, o).flatMap((l) => [
    { name: l.a, shape: [o.rank, l.in], kind: 'linear' as const },
    { name: l.b, shape: [l.out, o.rank], kind: 'linear' as const },
  ]);
}

/** A ~ N(0, 1/in), B = 0. */
export function initLora(config: ModelConfig, o: LoraOptions, rng: Rng): ParamStore {
  const store: ParamStore = new Map();
  for (const l of targetLinears(config, o)) {
    const a = new Float32Array(o.rank * l.in);
    fillNormal(rng.split(l.a), a, 1 / Math.sqrt(l.in));
    store.set(l.a, a);
    store.set(l.b, new Float32Array(l.out * o.rank));
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
    const a = adapters.get(l.a);
    const b = adapters.get(l.b);
    if (w === undefined || a === undefined || b === undefined) continue;
    const merged = Float32Array.from(w);
    const r = o.rank;
    const rowOf = (m: Float32Array, i: number, n: number) => m.subarray(i * n, (i + 1) * n);
    for (let i = 0; i < l.out; i++) {
      const row = rowOf(merged, i, l.in);
      rowOf(b, i, r).forEach((bk, k) => {
        const bik = bk * s;
        if (bik === 0) return;
        rowOf(a, k, l.in).forEach((akj, j) => {
          row[j] = (row[j] as number) + bik * akj;
        });
      });
    }
    out.set(`${l.name}.weight`, merged);
  }
  return out;
}
