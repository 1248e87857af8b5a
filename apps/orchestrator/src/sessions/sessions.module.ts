import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import { AgentSessionsProjection } from './agent-sessions.projection';
import { DefaultSessionPortsFactory } from './ports/default-session-ports.factory';
import { LlmBackendProvider } from './ports/llm-backend.provider';
import { SESSION_PORTS_FACTORY, SESSION_SUPERVISOR_SETTINGS, SessionSupervisor, type SessionSupervisorSettings } from './session-supervisor';

/** Agent sessions: the supervisor that runs them under leases, their projection, and the real ports. */
@Module({
  providers: [
    LlmBackendProvider,
    AgentSessionsProjection,
    SessionSupervisor,
    { provide: SESSION_PORTS_FACTORY, useClass: DefaultSessionPortsFactory },
    {
      provide: SESSION_SUPERVISOR_SETTINGS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): SessionSupervisorSettings => ({ leaseMs: config.SESSION_LEASE_MS, sweepMs: config.SESSION_SWEEP_MS }),
    },
  ],
  exports: [SessionSupervisor, LlmBackendProvider],
})
export class SessionsModule {}
