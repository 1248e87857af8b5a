import { hostname } from 'node:os';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  osDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

export interface ServiceIdentity {
  /** Defaults to OTEL_SERVICE_NAME (read by the environment detector). */
  serviceName?: string;
  serviceVersion?: string;
  /** Defaults to SERVICE_INSTANCE_ID, else hostname-pid (the platform's default for that variable). */
  serviceInstanceId?: string;
}

/**
 * The service this process runs: OTEL_SERVICE_NAME, else the app whose entry point started it
 * (`apps/<name>/src/main.js` or `.ts`), so a service started without the variable is still named.
 */
export function processServiceName(env: NodeJS.ProcessEnv = process.env, entry = process.argv[1] ?? ''): string | undefined {
  return env.OTEL_SERVICE_NAME || /[\\/]apps[\\/]([^\\/]+)[\\/]src[\\/]main\.[jt]s$/.exec(entry)?.[1];
}

/** The resource every signal of this process carries. */
export function serviceResource(identity: ServiceIdentity, env: NodeJS.ProcessEnv = process.env): Resource {
  const version = identity.serviceVersion ?? env.HEADSPACE_VERSION;
  return (
    defaultResource()
      // Not the process detector: it would publish the command line, which may carry secrets.
      .merge(detectResources({ detectors: [hostDetector, osDetector, envDetector] }))
      .merge(
        resourceFromAttributes({
          ...(identity.serviceName ? { [ATTR_SERVICE_NAME]: identity.serviceName } : {}),
          ...(version ? { [ATTR_SERVICE_VERSION]: version } : {}),
          'service.namespace': 'headspace',
          'service.instance.id': identity.serviceInstanceId ?? env.SERVICE_INSTANCE_ID ?? `${hostname()}-${process.pid}`,
          'process.pid': process.pid,
        }),
      )
  );
}
