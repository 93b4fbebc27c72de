export { type AgentPlayView, AgentSessions, type AgentTurnView, type PlayAgentV1 } from './agent-play';
export {
  CHART_DATA,
  type ChartDef,
  type ChartPoint,
  chartSpec,
  evalCharts,
  lastEval,
  PALETTE,
  reportFigures,
  runCharts,
} from './charts';
export { PlayError, type PlayGameInfo, PlayHost, type PlayView } from './play';
export { renderSvg } from './render';
export { type ParsedMetrics, parseMetrics, type RunMetrics, runMetrics } from './run-metrics';
export { type RunStatus, RunWatcher } from './run-watcher';
export {
  type Dashboard,
  type DashboardOptions,
  MAX_BODY_BYTES,
  MAX_CONNECTIONS,
  MAX_EVENT_STREAMS,
  startDashboard,
} from './server';
