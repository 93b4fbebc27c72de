export * from './checkpoint';
export * from './graph';
export * from './learner';
export * from './model';
export * from './optim';
export * from './runtime';
export * from './sampling';
export * from './tokenizer';
