export { type Io, processIo, reportError } from './program/error-boundary';
export { buildProgram, runCli } from './program/program';
