export * from './token.contracts';
export * from './pagination.contracts';
export * from './problem.contracts';
export * from './stream-payload.contracts';
export * from './whoami.contracts';
export * from './board.contracts';
