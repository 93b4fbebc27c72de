export * from './corpus';
export * from './environments';
export * from './evaluation';
export * from './presets';
export * from './teachers';
export * from './training';
export * from './vocabulary';
export * from './wiring';
