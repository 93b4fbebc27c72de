export { type MeanIntervalV1, meanInterval, ratioOfMeansInterval } from './mean-interval';
export {
  type AttemptMetricsV1,
  computeMetrics,
  type MetaEpisodeMetricsV1,
  type MetricsSummaryV1,
  mergeBatches,
  summarizeSlots,
} from './metrics';
export { type PairedPassBenefitV1, pairedPassBenefit } from './paired-benefit';
export { formatRate, type RateV1, rate, wilsonInterval, Z_95 } from './wilson';
