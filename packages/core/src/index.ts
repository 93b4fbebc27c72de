export * from '@mage-rl/spec';
export * from './evaluation';
export * from './io';
export * from './metrics';
export * from './rng';
export * from './runner';
export * from './training';
