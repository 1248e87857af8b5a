import { startTelemetry } from '@headspace/telemetry';
import { bootstrapService } from '@headspace/platform';
import { AppModule } from './app.module';
import { SERVICE, configSchema } from './config';

startTelemetry({ serviceName: SERVICE, serviceVersion: process.env.HEADSPACE_VERSION });

void bootstrapService({
  service: SERVICE,
  configSchema,
  module: (config) => AppModule.forRoot(config),
});
