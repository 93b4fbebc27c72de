export * from './graph';
export * from './model';
export * from './runtime';
