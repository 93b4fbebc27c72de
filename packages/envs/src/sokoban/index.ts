export {
  createSokoban,
  type PlayedMoves,
  playSokobanMoves,
  SOKOBAN_ENV_ID,
  type SokobanEnv,
  type SokobanOptions,
  type SokobanResolvedOptions,
  sokobanOptionsSchema,
} from './env';
export { applySokoban, type SokobanAction, sokobanGame } from './game';
export { type GeneratedRoom, type GenerateRoomOptions, generateRoom, RoomGenerationError } from './generator';
export {
  boxesOnTargets,
  createRoom,
  isSolved,
  MOVE_INDEX,
  type MoveResult,
  parseSokoban,
  renderSokobanRows,
  SOKOBAN_MOVES,
  SOKOBAN_SYMBOLS,
  type SokobanMove,
  type SokobanRoom,
  type SokobanState,
  sokobanStateKey,
  tryMove,
} from './room';
export { generateSokobanRooms, type SeededRoom, type SokobanRoomSetOptions } from './room-set';
export {
  type DeadlockOptions,
  deadSquares,
  isDeadlocked,
  type SolveOptions,
  type SolveResult,
  type SolveStatus,
  solveSokoban,
} from './solver';
export { formatSokobanAction, parseSokobanAction, renderSokoban, sokobanRules } from './text';
