export {
  ALL_LORA_TARGETS,
  addLoraInputs,
  initLora,
  type LoraOptions,
  type LoraTarget,
  loraScale,
  loraSpecs,
  mergeLora,
} from './lora';
