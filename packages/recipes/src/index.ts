export * from './corpus';
export * from './evaluation';
export * from './presets';
export * from './teachers';
export * from './vocabulary';
export * from './wiring';
