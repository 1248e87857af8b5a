export * from './test-database';
export * from './wait-for';
export * from './infra';

