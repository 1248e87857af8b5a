export * from './token.contracts';
export * from './pagination.contracts';
export * from './problem.contracts';
