import { Module } from '@nestjs/common';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { AppConfig } from '../config';
import { NatsTeamTools } from './adapters/nats-team-tools.adapter';
import { AgentSessionsProjection } from './agent-sessions.projection';
import { CLAUDE_CODE_SESSIONS, DefaultClaudeCodeSessions } from './claude-code/claude-code-sessions.factory';
import { ClaudeHookEndpointService } from './hook-endpoint/claude-hook-endpoint.service';
import { SessionLearningsProcess } from './keep-learnings/session-learnings.process';
import { DefaultSessionPortsFactory } from './ports/default-session-ports.factory';
import { LlmBackendProvider } from './ports/llm-backend.provider';
import { TEAM_TOOLS_PORT, type TeamToolsFor } from './ports/team-tools.port';
import { SandboxHealthController } from './sandbox/sandbox-health.controller';
import { SubagentSessions } from './subagents/subagent-sessions.service';
import { AgentsModule } from '../agents/agents.module';
import { LearningsModule } from '../learnings/learnings.module';
import { SessionSandbox } from './sandbox/session-sandbox.service';
import { SESSION_PORTS_FACTORY, SESSION_START_GATE, SESSION_SUPERVISOR_SETTINGS, SessionSupervisor, type SessionSupervisorSettings } from './session-supervisor';

/**
 * Agent sessions: the supervisor that runs them under leases, their projection, the real ports and
 * the processor that keeps what they learned. Runs start sessions through SessionSupervisor.
 */
@Module({
  imports: [AgentsModule, LearningsModule],
  controllers: [SandboxHealthController],
  providers: [
    SessionSandbox,
    { provide: SESSION_START_GATE, useExisting: SessionSandbox },
    LlmBackendProvider,
    AgentSessionsProjection,
    SessionLearningsProcess,
    SessionSupervisor,
    SubagentSessions,
    { provide: SESSION_PORTS_FACTORY, useClass: DefaultSessionPortsFactory },
    { provide: CLAUDE_CODE_SESSIONS, useClass: DefaultClaudeCodeSessions },
    ClaudeHookEndpointService,
    { provide: TEAM_TOOLS_PORT, inject: [NATS_CONNECTION], useFactory: (nc: NatsConnection): TeamToolsFor => (team) => new NatsTeamTools(nc, team) },
    {
      provide: SESSION_SUPERVISOR_SETTINGS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): SessionSupervisorSettings => ({ leaseMs: config.SESSION_LEASE_MS, sweepMs: config.SESSION_SWEEP_MS }),
    },
  ],
  exports: [SessionSupervisor, LlmBackendProvider, SessionSandbox],
})
export class SessionsModule {}
