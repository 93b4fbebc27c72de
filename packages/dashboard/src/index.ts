// A trained policy as the person's opponent: the interface is spec's (the trainer builds agents without
// depending on this package); re-exported for the dashboard's users.
export type { PlayAgentV1 } from '@mage-rl/core';
export { type AgentPlayView, AgentSessions, type AgentTurnView } from './agent-play';
export { PlayError, type PlayGameInfo, PlayHost, type PlayView } from './play';
export { type RunStatus, RunWatcher } from './run-watcher';
export {
  type Dashboard,
  type DashboardOptions,
  MAX_BODY_BYTES,
  MAX_CONNECTIONS,
  MAX_EVENT_STREAMS,
  startDashboard,
} from './server';
