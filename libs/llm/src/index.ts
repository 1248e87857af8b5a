export * from './client';
export * from './backend';
export * from './simulator';
export { extractJsonObject } from './text';
export { openLlmBackend, type OpenLlmBackend, type OpenLlmBackendOptions } from './open-backend';
export { LazyLlmBackend, type LazyLlmBackendOptions } from './lazy-backend';
