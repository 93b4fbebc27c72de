export * from './corpus';
export * from './presets';
export * from './teachers';
export * from './vocabulary';
export * from './wiring';
