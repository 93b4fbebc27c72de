/** `GET /v1/models` (the base model and every loaded adapter) and vLLM's LoRA adapter endpoints. */

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
  await ctx.engine.loadAdapter(r.lora_name, r.lora_path, r.load_inplace === true);
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
