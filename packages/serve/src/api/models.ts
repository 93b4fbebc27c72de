/** `GET /v1/models` (the base model and every loaded adapter) and vLLM's LoRA adapter endpoints. */

import { realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ApiError } from '../http/errors';
import { type ApiContext, unixTime } from './context';
import { loadLoraSchema, parseBody, unloadLoraSchema } from './schemas';

const started = unixTime();

function modelCard(ctx: ApiContext, id: string, parent: string | null) {
  return {
    id,
    object: 'model',
    created: started,
    owned_by: 'mage-rl',
    root: parent ?? id,
    parent,
    max_model_len: ctx.engine.model.config.maxPositions,
  };
}

export function listModels(ctx: ApiContext) {
  const base = ctx.engine.model.id;
  return {
    object: 'list',
    data: [modelCard(ctx, base, null), ...ctx.engine.adapterNames().map((a) => modelCard(ctx, a, base))],
  };
}

export function retrieveModel(ctx: ApiContext, id: string) {
  const base = ctx.engine.model.id;
  if (id === base) return modelCard(ctx, id, null);
  if (ctx.engine.adapterNames().includes(id)) return modelCard(ctx, id, base);
  throw new ApiError(404, `The model '${id}' does not exist.`, { param: 'model', code: 'model_not_found' });
}

/** Plain-text answers, as vLLM gives them. */
export interface TextAnswer {
  readonly text: string;
}

export async function loadLoraAdapter(ctx: ApiContext, body: unknown): Promise<TextAnswer> {
  const r = parseBody(loadLoraSchema, body);
  if (r.lora_name === ctx.engine.model.id)
    throw new ApiError(400, `'${r.lora_name}' is the base model's name.`, { param: 'lora_name' });
  const dir = await allowedAdapterDir(ctx, r.lora_path);
  try {
    await ctx.engine.loadAdapter(r.lora_name, dir, r.load_inplace === true);
  } catch {
    // The loader's message may quote the adapter's files; the client learns only that it failed.
    throw new ApiError(400, 'The directory does not hold a PEFT LoRA adapter this model can load.', {
      param: 'lora_path',
      code: 'invalid_adapter',
    });
  }
  return { text: `Success: LoRA adapter '${r.lora_name}' added successfully.` };
}

export function unloadLoraAdapter(ctx: ApiContext, body: unknown): TextAnswer {
  const r = parseBody(unloadLoraSchema, body);
  if (!ctx.engine.unloadAdapter(r.lora_name)) {
    throw new ApiError(404, `The LoRA adapter '${r.lora_name}' cannot be found.`, {
      param: 'lora_name',
      code: 'lora_not_found',
    });
  }
  return { text: `Success: LoRA adapter '${r.lora_name}' removed successfully.` };
}

const refusedPath = () =>
  new ApiError(403, "lora_path must name an adapter directory under the server's --adapter-dir.", {
    param: 'lora_path',
    code: 'adapter_dir_refused',
  });

/**
 * `path` resolved (symlinks included) when it lies under `--adapter-dir` and its weights file is within
 * the size limit; otherwise one refusal that says nothing about what exists on disk.
 */
async function allowedAdapterDir(ctx: ApiContext, path: string): Promise<string> {
  if (ctx.adapterDir === undefined)
    throw new ApiError(403, 'Loading adapters over HTTP is off: start the server with --adapter-dir <dir>.', {
      param: 'lora_path',
      code: 'adapter_dir_refused',
    });
  const root = await realpath(ctx.adapterDir).catch(() => null);
  const dir = await realpath(path).catch(() => null);
  if (root === null || dir === null || !(dir === root || dir.startsWith(root + sep))) throw refusedPath();
  const weights = await stat(join(dir, 'adapter_model.safetensors')).catch(() => null);
  if (weights !== null && weights.size > ctx.maxAdapterBytes)
    throw new ApiError(
      413,
      `adapter_model.safetensors is larger than this server's limit of ${ctx.maxAdapterBytes} bytes.`,
      {
        param: 'lora_path',
        code: 'adapter_too_large',
      },
    );
  return dir;
}
