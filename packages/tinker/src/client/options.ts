/** The options of the Tinker client and their defaults (architecture/tinker.md). */

export interface TinkerClientOptions {
  /** The service's base URL, without `/api/v1` (e.g. `https://tinker.example/services/tinker-prod`). */
  readonly baseURL: string;
  /** Sent as `X-API-Key` when set. */
  readonly apiKey?: string;
  /** Limit of one HTTP request, in milliseconds. */
  readonly timeoutMs?: number;
  /** Further tries of a request after a retryable failure. */
  readonly retries?: number;
  /** Wait before the first retry; doubled before each next one, up to `maxRetryDelayMs`. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  /** Wait between two polls of a pending future. */
  readonly pollIntervalMs?: number;
  /** How long a future may stay pending before the call fails. */
  readonly futureTimeoutMs?: number;
  /** Interval of session heartbeats; 0 sends none. */
  readonly heartbeatMs?: number;
  /** Tags of the sessions this client creates. */
  readonly tags?: readonly string[];
  readonly fetch?: typeof fetch;
  /** Waits between retries and polls (tests pass one that records the delays and returns at once). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock of the future timeout, in milliseconds (default `Date.now`). */
  readonly now?: () => number;
  /** Called before each retry. */
  readonly onRetry?: (retry: TinkerRetry) => void;
}

export interface TinkerRetry {
  readonly endpoint: string;
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly delayMs: number;
  /** `HTTP 503`, `timeout`, `network: …`. */
  readonly reason: string;
}

export const TINKER_CLIENT_DEFAULTS = {
  timeoutMs: 120_000,
  retries: 6,
  retryDelayMs: 500,
  maxRetryDelayMs: 30_000,
  pollIntervalMs: 250,
  futureTimeoutMs: 3_600_000,
  heartbeatMs: 10_000,
} as const;
