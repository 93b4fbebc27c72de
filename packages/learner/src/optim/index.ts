export {
  type AdamW,
  type AdamWOptions,
  type AdamWState,
  createAdamW,
  createLrSchedule,
  globalNorm,
  type LrSchedule,
  type LrScheduleOptions,
  type StepResult,
} from './adamw';
