export * from '@mage-rl/spec';
export * from './evaluation';
export * from './io';
export * from './metrics';
export * from './remote-policy';
export * from './rng';
export * from './runner';
export * from './training';
