import { Module } from '@nestjs/common';
import { RunsActiveGauge } from './runs-active-gauge';

/** The orchestrator's gauges over its read models (its counters are fed by the recorders). */
@Module({ providers: [RunsActiveGauge] })
export class OrchestratorTelemetryModule {}
