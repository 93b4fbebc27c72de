// Worker-thread entry: owns onnxruntime sessions so `session.run` never blocks the main event loop.
// Messages: { id, op, args } → { id, ok: true, value } | { id, ok: false, error: { message, code } }.
import { parentPort } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { createOrtHost } from './ort-host.js';

const host = createOrtHost(ort);

function transferables(value) {
  const list = [];
  if (value && typeof value === 'object') {
    for (const t of Object.values(value)) {
      if (t?.data?.buffer instanceof ArrayBuffer && !list.includes(t.data.buffer)) list.push(t.data.buffer);
    }
  }
  return list;
}

parentPort.on('message', async ({ id, op, args }) => {
  try {
    let value;
    if (op === 'load') value = await host.load(args.key, args.model, args.options);
    else if (op === 'evict') value = await host.evict(args.key);
    else if (op === 'setPersistent') value = host.setPersistent(args.values);
    else if (op === 'allocate') value = host.allocate(args.name, args.dims);
    else if (op === 'run') value = await host.run(args.key, args.feeds, args.fetches, args.scatter);
    else if (op === 'saveKv') value = host.saveKv(args.entries, args.names);
    else if (op === 'restoreKv') value = host.restoreKv(args.entries, args.names);
    else if (op === 'dropKv') value = host.dropKv(args.ids);
    else if (op === 'has') value = host.has(args.key);
    else if (op === 'dispose') value = await host.dispose();
    else throw new Error(`unknown op ${op}`);
    parentPort.postMessage({ id, ok: true, value }, op === 'run' ? transferables(value) : []);
  } catch (error) {
    parentPort.postMessage({
      id,
      ok: false,
      error: { message: String(error?.message ?? error), code: error?.code },
    });
  }
});
