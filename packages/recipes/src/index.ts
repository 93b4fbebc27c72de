export * from './corpus';
export * from './teachers';
export * from './vocabulary';
