export { type AnyTeacherOptions, createTeacher, TEACHER_ENV_IDS } from './create-teacher';
export { doorsReaderDoor, doorsTeacher } from './doors-teacher';
export {
  KUHN_TEACHER_ITERATIONS,
  type KuhnTeacherOptions,
  kuhnEquilibriumStrategy,
  kuhnTeacher,
  kuhnTeacherAction,
} from './kuhn-teacher';
export { type FactualNoteOptions, factualNote, factualNoteBody, type NoteFacts } from './notes';
export { rpsTeacher, rpsTeacherPlanner, rpsTeacherThrows } from './rps-teacher';
export {
  type SokobanTeacherMoveOptions,
  type SokobanTeacherOptions,
  sokobanTeacher,
  sokobanTeacherMoves,
} from './sokoban-teacher';
export {
  envTeacher,
  type FinishedFacts,
  type TeacherNotes,
  type TeacherOptions,
  type TeacherSpec,
  teacherPolicy,
  teacherShares,
} from './teacher-policy';
export { optimalTicTacToeMoves, ticTacToeFrozenTeacher, wonLine } from './tictactoe-frozen-teacher';
export {
  completingCells,
  type TicTacToeTeacherReason,
  ticTacToeTeacher,
  ticTacToeTeacherMove,
} from './tictactoe-teacher';
export { treasureCandidates, treasureReaderProbe, treasureTeacher } from './treasure-teacher';
