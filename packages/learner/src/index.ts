export * from './graph';
export * from './runtime';
