export * from './errors';
export * from './json';
export * from './population';
export * from './records';
export * from './rng';
export * from './spec';
