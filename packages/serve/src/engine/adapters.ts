/**
 * The engine's model variants on one runner: the base model and LoRA adapters loaded at runtime (PEFT
 * directories). Each adapter layout (rank, alpha, targets) has its own generator and graphs; the
 * tensors of one adapter at a time sit in the runner's persistent feeds.
 */

import { MageError } from '@mage-rl/core';
import {
  createGenerator,
  type Generator,
  type GraphRunner,
  importPeftAdapter,
  type LoraOptions,
  loraSpecs,
} from '@mage-rl/learner';
import type { ServedModel } from './served-model';

export interface Adapter {
  /** Distinguishes an adapter from a later one loaded under the same name. */
  readonly serial: number;
  readonly lora: LoraOptions;
  readonly tensors: ReadonlyMap<string, Float32Array>;
  /** Adapters with the same layout share graphs. */
  readonly layoutKey: string;
}

export interface Variants {
  load(name: string, dir: string, replace: boolean): Promise<void>;
  unload(name: string): boolean;
  names(): string[];
  /** The adapter `name` (null: the base model); `UNKNOWN_ID` when none is loaded under it. */
  get(name: string | null): Adapter | null;
  /** Uploads `a`'s tensors unless they are in the runner already; returns its generator. */
  prepare(a: Adapter | null): Promise<Generator>;
}

const layoutOf = (l: LoraOptions) =>
  `lora-r${l.rank}-a${l.alpha ?? l.rank}-${[...(l.targets ?? [])].join('+')}`;

export function createVariants(model: ServedModel, runner: GraphRunner): Variants {
  const adapters = new Map<string, Adapter>();
  const generators = new Map<string, Generator>();
  let uploaded: Adapter | null = null;
  let nextSerial = 0;

  const generatorOf = (a: Adapter | null): Generator => {
    const key = a === null ? 'base' : a.layoutKey;
    let g = generators.get(key);
    if (g === undefined) {
      g = createGenerator({
        config: model.config,
        runner,
        keyPrefix: `serve:${key}`,
        ...(a === null ? {} : { graphOptions: { lora: a.lora } }),
      });
      generators.set(key, g);
    }
    return g;
  };

  return {
    async load(name, dir, replace) {
      if (adapters.has(name) && !replace) {
        throw new MageError('INVALID_ARGUMENT', `The LoRA adapter '${name}' has already been loaded.`);
      }
      const peft = await importPeftAdapter(dir, model.config);
      adapters.set(name, {
        serial: nextSerial++,
        lora: peft.lora,
        tensors: peft.adapters,
        layoutKey: layoutOf(peft.lora),
      });
    },
    unload: (name) => adapters.delete(name),
    names: () => [...adapters.keys()],
    get(name) {
      if (name === null) return null;
      const a = adapters.get(name);
      if (a === undefined) throw new MageError('UNKNOWN_ID', `No adapter '${name}' is loaded.`);
      return a;
    },
    async prepare(a) {
      if (a !== null && a !== uploaded) {
        const values: Record<string, { data: Float32Array; dims: readonly number[] }> = {};
        for (const s of loraSpecs(model.config, a.lora))
          values[s.name] = { data: a.tensors.get(s.name) as Float32Array, dims: s.shape };
        await runner.setPersistent(values);
        uploaded = a;
      }
      return generatorOf(a);
    },
  };
}
