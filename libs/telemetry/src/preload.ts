/**
 * `node -r …/libs/telemetry/src/preload.js dist/apps/<app>/src/main.js`: starts the OpenTelemetry
 * SDK and its instrumentations before any module of the service loads, so http, fastify, pg, undici
 * and pino are patched as they are first required. The service name is OTEL_SERVICE_NAME, else the
 * app of the entry point. The service's own startTelemetry() call is then a no-op.
 */
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { serviceInstrumentations } from './instrumentations';
import { logsExportConfigured } from './logs';
import { processServiceName } from './resource';
import { startTelemetry } from './telemetry-sdk';

startTelemetry({ serviceName: processServiceName() ?? 'headspace' });
registerInstrumentations({ instrumentations: serviceInstrumentations({ logSending: logsExportConfigured(process.env) }) });
