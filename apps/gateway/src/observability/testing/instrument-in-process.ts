/**
 * Imported first by a spec that boots the services in its own process: registers the
 * instrumentations a service's preload (`node -r libs/telemetry/src/preload`) registers, so the
 * HTTP server and Node runtime metrics exist here as they do in a deployed service. Later
 * requires of http, fastify and pg are patched; modules loaded before this one are not.
 */
import '@headspace/telemetry'; // registers the process's MeterProvider, which the instrumentations report to
import { registerInstrumentations } from '@opentelemetry/instrumentation';
// The exact list the services run with; apps import libs only through their index outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { serviceInstrumentations } from '../../../../../libs/telemetry/src/instrumentations';

registerInstrumentations({ instrumentations: serviceInstrumentations({ logSending: false }) });
