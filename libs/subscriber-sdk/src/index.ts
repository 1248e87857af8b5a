export * from './headspace-event';
export * from './sse-parser';
export * from './follow-events';
export * from './verify-webhook-request';
export * from './subscriber-errors';
