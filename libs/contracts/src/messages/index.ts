export * from './service-names';
export * from './event-definition';
export * from './request-definition';
export * from './namespace';
export * from './nats-permissions';
