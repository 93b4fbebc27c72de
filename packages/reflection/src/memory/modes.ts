/** The four in-context memory modes: what attempt k's prompts carry about attempts 0..k−1. */

import { ConfigError, type MemoryV1, UnknownIdError } from '@mage-rl/spec';
import { createContextMemory, type LayoutOptions } from './context-memory';

export type MemoryMode = 'reflection' | 'history' | 'reflection+history' | 'none';
export const MEMORY_MODES: readonly MemoryMode[] = ['reflection', 'history', 'reflection+history', 'none'];
/** The modes whose prompts show the notes of earlier attempts. */
export const NOTE_MODES = ['reflection', 'reflection+history'] as const satisfies readonly MemoryMode[];

export interface MemoryOptions extends LayoutOptions {
  /** Default `reflection`. */
  readonly mode?: MemoryMode;
  /**
   * Whether reflect turns run between attempts. Default: true for every mode except `none` (in `history`
   * mode the notes are written but not shown, as in the paper's ablation).
   */
  readonly reflect?: boolean;
}

/**
 * - `reflection`: for each earlier attempt, whether it was won and the note written after it.
 * - `history`: the earlier attempts' action/observation history, no notes.
 * - `reflection+history`: both.
 * - `none`: nothing (plain multi-attempt play; with K = 1, ordinary single-episode RL).
 */
export function createMemory(options: MemoryOptions = {}): MemoryV1 {
  const mode = options.mode ?? 'reflection';
  if (!MEMORY_MODES.includes(mode)) throw new UnknownIdError('memory mode', String(mode), MEMORY_MODES);
  if (mode === 'none' && options.reflect === true) {
    throw new ConfigError(
      "Memory mode 'none' shows nothing of earlier attempts; reflect turns make no sense.",
      {
        path: 'reflect',
      },
    );
  }
  return createContextMemory({
    ...options,
    id: mode,
    reflects: options.reflect ?? mode !== 'none',
    notes: (NOTE_MODES as readonly MemoryMode[]).includes(mode),
    history: mode === 'history' || mode === 'reflection+history',
  });
}
