export * from './test-database';
export * from './wait-for';
// infra re-export added when libs/testing/src/infra/index.ts lands

