/**
 * The error hierarchy of mage-rl. Every error the libraries throw on purpose is a `MageError`
 * subclass with a string `code`, optional context fields and an optional `cause`.
 */

const BRAND = Symbol.for('mage-rl.error');

export type MageErrorCode =
  | 'INVALID_CONFIG'
  | 'INVALID_ARGUMENT'
  | 'UNKNOWN_ID'
  | 'ENV_FAILURE'
  | 'POLICY_FAILURE'
  | 'OPPONENT_FAILURE'
  | 'RUNNER_FAILURE'
  | 'CHECKPOINT_INVALID'
  | 'MODEL_FORMAT'
  | 'NUMERIC_INSTABILITY'
  | 'ABORTED'
  | 'IO_FAILURE'
  | 'CONFORMANCE';

export type ErrorContext = Readonly<Record<string, unknown>>;

export interface MageErrorOptions {
  readonly context?: ErrorContext;
  readonly cause?: unknown;
}

export interface MageErrorJSON {
  readonly name: string;
  readonly code: MageErrorCode;
  readonly message: string;
  readonly context: ErrorContext;
  readonly cause?: unknown;
}

export class MageError extends Error {
  readonly code: MageErrorCode;
  readonly context: ErrorContext;
  readonly [BRAND] = true;

  constructor(code: MageErrorCode, message: string, options: MageErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MageError';
    this.code = code;
    this.context = options.context ?? {};
  }

  /** True for any mage-rl error, even one created by a duplicate install of this package. */
  static isInstance(value: unknown): value is MageError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  toJSON(): MageErrorJSON {
    const cause = this.cause;
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      context: this.context,
      ...(cause === undefined
        ? {}
        : {
            cause: MageError.isInstance(cause)
              ? cause.toJSON()
              : cause instanceof Error
                ? cause.message
                : cause,
          }),
    };
  }
}

/** A configuration value failed validation. `path` is a dotted path such as `train.lr`. */
export class ConfigError extends MageError {
  constructor(message: string, options: MageErrorOptions & { path?: string } = {}) {
    super('INVALID_CONFIG', message, {
      ...options,
      context: { ...options.context, ...(options.path === undefined ? {} : { path: options.path }) },
    });
    this.name = 'ConfigError';
  }
}

/** A function was called with an argument outside its contract. */
export class InvalidArgumentError extends MageError {
  constructor(message: string, options: MageErrorOptions = {}) {
    super('INVALID_ARGUMENT', message, options);
    this.name = 'InvalidArgumentError';
  }
}

/** An env, opponent, method or preset id is unknown; the message lists the known ids. */
export class UnknownIdError extends MageError {
  readonly kind: string;
  readonly id: string;
  readonly known: readonly string[];

  constructor(kind: string, id: string, known: readonly string[], options: MageErrorOptions = {}) {
    super('UNKNOWN_ID', `Unknown ${kind} '${id}'. Known ${kind} ids: ${known.join(', ') || '(none)'}.`, {
      ...options,
      context: { ...options.context, kind, id, known },
    });
    this.name = 'UnknownIdError';
    this.kind = kind;
    this.id = id;
    this.known = known;
  }
}

/** An environment, opponent or policy threw while a meta-episode was running. */
export class RolloutError extends MageError {
  constructor(
    code: 'ENV_FAILURE' | 'POLICY_FAILURE' | 'OPPONENT_FAILURE' | 'RUNNER_FAILURE',
    message: string,
    options: MageErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'RolloutError';
  }
}

/** A checkpoint or model file is missing, truncated or inconsistent. */
export class CheckpointError extends MageError {
  constructor(
    message: string,
    options: MageErrorOptions & { code?: 'CHECKPOINT_INVALID' | 'MODEL_FORMAT' } = {},
  ) {
    super(options.code ?? 'CHECKPOINT_INVALID', message, options);
    this.name = 'CheckpointError';
  }
}

/** Loss or gradients were NaN/Inf too many times in a row. */
export class NumericInstabilityError extends MageError {
  constructor(message: string, options: MageErrorOptions = {}) {
    super('NUMERIC_INSTABILITY', message, options);
    this.name = 'NumericInstabilityError';
  }
}

/** Work was cancelled through an `AbortSignal`. */
export class AbortedError extends MageError {
  constructor(message = 'The operation was aborted.', options: MageErrorOptions = {}) {
    super('ABORTED', message, options);
    this.name = 'AbortedError';
  }
}

/** Reading or writing a file failed. */
export class IoError extends MageError {
  constructor(message: string, options: MageErrorOptions = {}) {
    super('IO_FAILURE', message, options);
    this.name = 'IoError';
  }
}

/** An implementation of a spec interface broke its contract (conformance suite). */
export class ConformanceError extends MageError {
  constructor(message: string, options: MageErrorOptions = {}) {
    super('CONFORMANCE', message, options);
    this.name = 'ConformanceError';
  }
}

/** Throws `AbortedError` if the signal is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new AbortedError(undefined, { cause: signal.reason });
  }
}
