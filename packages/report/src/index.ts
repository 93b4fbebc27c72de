// The charts and tables that the trainer's reports and the dashboard share: chart definitions of runs'
// metrics, their Vega-Lite specs, SVG and PNG rendering in Node, and the run report's markdown tables.
export { CHART_DATA, type ChartDef, type ChartPoint, chartSpec, PALETTE } from './charts/chart-spec';
export { evalCharts, lastEval, reportFigures, runCharts } from './charts/run-charts';
export { type ParsedMetrics, parseMetrics, type RunMetrics, runMetrics } from './metrics/run-metrics';
export { renderPng } from './render/png';
export { renderSvg } from './render/render-svg';
export { type Chart, chartGrid, vegaChart } from './render/svg-chart';
export { evalOpponentTable, evalSummaryTable, type TabledRun } from './tables/run-tables';
