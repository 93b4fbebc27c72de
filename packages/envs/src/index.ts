export * from './kuhn-poker';
export * from './tictactoe';
