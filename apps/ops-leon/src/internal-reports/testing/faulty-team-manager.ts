/**
 * The real team-manager, started by the platform's bootstrapService as in production, plus the
 * spec's two bugs (spec-faults.ts): what own-errors.e2e.spec.ts runs as a child process.
 */
import { Module } from '@nestjs/common';
import { bootstrapService } from '@headspace/platform';
import { startTelemetry } from '@headspace/telemetry';
// A spec fixture booting another app; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule } from '../../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE, configSchema } from '../../../../team-manager/src/config';
import { SpecFaultsController } from './spec-faults';

@Module({})
class FaultyTeamManager {}

startTelemetry({ serviceName: SERVICE });

void bootstrapService({
  service: SERVICE,
  configSchema,
  module: (config) => ({ module: FaultyTeamManager, imports: [AppModule.forRoot(config)], controllers: [SpecFaultsController] }),
});
