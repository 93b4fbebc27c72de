/**
 * `mage serve`: a model (a model directory, with a run's checkpoint over it) behind the OpenAI-compatible
 * server of `@mage-rl/serve`. The model is loaded once (a run's LoRA adapters merged into its weights), its
 * weights handed to the serving engine (whose runner takes them: they are held once), and the learner
 * that loaded them disposed.
 */

import { basename, resolve } from 'node:path';
import { loadModelSource, type ModelSourceV1 } from '@mage-rl/learner';
import type { ServeLimits } from '../api/generation';
import { createServeEngine, type EngineLimits } from '../engine/engine';
import type { ServedModel } from '../engine/served-model';
import { createOpenAiServer, type OpenAiServer, type OpenAiServerOptions } from '../http/server';

/** The served form of a model source, named `name` (default: the model directory's name). */
export async function servedModelOf(source: ModelSourceV1, name?: string): Promise<ServedModel> {
  const loaded = await loadModelSource(source, { runner: 'local' });
  try {
    const { learner } = loaded;
    return {
      id: name ?? basename(resolve(source.modelDir)),
      config: learner.config,
      tokenizer: learner.tokenizer,
      weights: learner.mergedWeights(),
    };
  } finally {
    await loaded.learner.dispose();
  }
}

export interface ServeOptions {
  /** The model: a directory, with a checkpoint over it (a run directory resolves to one in the trainer). */
  readonly source: ModelSourceV1;
  readonly name?: string;
  readonly host?: string;
  readonly port?: number;
  readonly apiKey?: string;
  readonly maxBodyBytes?: number;
  readonly maxConcurrentRequests?: number;
  readonly engine?: Partial<EngineLimits>;
  readonly limits?: Partial<ServeLimits>;
  /** Adapters to load at start: name → PEFT adapter directory. */
  readonly loras?: Readonly<Record<string, string>>;
  /** What clients may do over HTTP: `--adapter-dir`, `--allow-origin`. */
  readonly access?: Pick<OpenAiServerOptions, 'adapterDir' | 'http'>;
}

/** Loads the model and starts the server (resolves once it listens). */
export async function serveModel(o: ServeOptions): Promise<OpenAiServer> {
  const model = await servedModelOf(o.source, o.name);
  // Nothing reads the merged weights after the upload: the engine's runner takes them.
  const engine = await createServeEngine({
    model,
    transferWeights: true,
    ...(o.engine ? { limits: o.engine } : {}),
  });
  try {
    for (const [name, dir] of Object.entries(o.loras ?? {}))
      await engine.loadAdapter(name, resolve(dir), false);
  } catch (e) {
    await engine.close();
    throw e;
  }
  // A server that cannot listen closes the engine (its worker would keep the process alive).
  return createOpenAiServer({
    engine,
    ...(o.host === undefined ? {} : { host: o.host }),
    ...(o.port === undefined ? {} : { port: o.port }),
    ...(o.apiKey === undefined ? {} : { apiKey: o.apiKey }),
    ...(o.maxBodyBytes === undefined ? {} : { maxBodyBytes: o.maxBodyBytes }),
    ...(o.maxConcurrentRequests === undefined ? {} : { maxConcurrentRequests: o.maxConcurrentRequests }),
    ...(o.limits ? { limits: o.limits } : {}),
    ...o.access,
  }).catch(async (e: unknown) => {
    await engine.close();
    throw e;
  });
}
