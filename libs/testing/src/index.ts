export * from './test-database';
export * from './wait-for';
export * from './infra';

export * from './nats-cleanup';
export * from './recording-queries';
export * from './projection-spec';
export * from './service-harness';
export * from './service-process';
export * from './metrics-scrape';
export * from './otlp-receiver';
export * from './claude-cli';
export * from './mcp';
