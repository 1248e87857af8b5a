import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { createSandbox, sandboxAvailabilityOnce, type Sandbox, type SandboxAvailability } from '@headspace/agent-runtime';
import { ErrorCodes, getTeam, HeadspaceError, type EventData, type SandboxSettings, type sessionStarted } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { AppConfig } from '../../config';
import { sessionSandbox } from './session-sandbox.policy';

type Started = EventData<typeof sessionStarted>;

/** What GET /health/sandbox shows (and the logs say). */
export type SandboxStatus =
  | { status: 'enforced'; bwrap: string; version: string; userNamespace: boolean; pidsLimit: string }
  | { status: 'off'; warning: string }
  | { status: 'unavailable'; reason: string };

const OFF_WARNING = 'HS_SANDBOX=off: agent sessions run WITHOUT a sandbox, as the orchestrator\'s own user (they can read its environment, files and network)';

/**
 * Enforces the sandbox on agent sessions: probes bubblewrap once at start, refuses sessions where
 * it cannot run (unless the operator set HS_SANDBOX=off, which is warned about loudly), and builds
 * each session's sandbox from its team's settings as the team-manager holds them.
 */
@Injectable()
export class SessionSandbox implements OnApplicationBootstrap {
  private readonly logger = new Logger('Sandbox');
  private probed?: Promise<SandboxAvailability>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.HS_SANDBOX === 'off') return this.logger.warn(OFF_WARNING);
    const a = await this.availability();
    if (a.available) this.logger.log(`agent sandbox: ${a.version}, user namespace ${a.userNamespace ? 'uid 65534' : 'none'}, process limit by ${a.pidsLimit}`);
    else this.logger.error(`agent sandbox unavailable: ${a.reason}. Agent sessions will refuse to start; set HS_SANDBOX=off to run them unsandboxed.`);
    if (a.available && a.pidsLimit === 'none') this.logger.warn('agent sandbox: no pids cgroup can be made and RLIMIT_NPROC does not bind root; fork bombs are bounded only by the time limit');
  }

  private availability(): Promise<SandboxAvailability> {
    return (this.probed ??= sandboxAvailabilityOnce(this.config.HS_SANDBOX_BWRAP ? { bwrap: this.config.HS_SANDBOX_BWRAP } : {}));
  }

  async status(): Promise<SandboxStatus> {
    if (this.config.HS_SANDBOX === 'off') return { status: 'off', warning: OFF_WARNING };
    const a = await this.availability();
    return a.available ? { status: 'enforced', bwrap: a.bwrap, version: a.version, userNamespace: a.userNamespace, pidsLimit: a.pidsLimit } : { status: 'unavailable', reason: a.reason };
  }

  /** Throws SANDBOX.UNAVAILABLE when sessions must not start here. */
  async assertCanStart(): Promise<void> {
    const s = await this.status();
    if (s.status === 'unavailable') throw new HeadspaceError(ErrorCodes.sandboxUnavailable, `Agent sessions cannot start: ${s.reason}. Set HS_SANDBOX=off to run agents unsandboxed.`);
  }

  /** The sandbox of a session's tools and hooks (or of a command the orchestrator runs on a persona's behalf); undefined when it runs unsandboxed (said in the log). */
  async forSession(started: Pick<Started, 'sessionId' | 'team' | 'persona'>, workspace: string): Promise<Sandbox | undefined> {
    if (this.config.HS_SANDBOX === 'off') {
      this.logger.warn(`session ${started.sessionId} (${started.persona}): ${OFF_WARNING}`);
      return undefined;
    }
    const a = await this.availability();
    if (!a.available) throw new HeadspaceError(ErrorCodes.sandboxUnavailable, `Agent session ${started.sessionId} cannot start: ${a.reason}`);
    const decision = sessionSandbox(await this.teamSettings(started.team), started.persona);
    if (!decision.sandboxed) {
      this.logger.warn(`session ${started.sessionId} (${started.persona}) runs unsandboxed: ${decision.why}`);
      return undefined;
    }
    return createSandbox(a, {
      workspace,
      workspaceAccess: decision.workspaceAccess,
      network: decision.network,
      extraEnv: { HEADSPACE_SESSION_ID: started.sessionId, HEADSPACE_TEAM: started.team, HEADSPACE_PERSONA: started.persona },
      maxProcesses: this.config.HS_SANDBOX_MAX_PROCESSES,
    });
  }

  /** The team's settings from the team-manager; unknown or unreachable: undefined (the strict defaults). */
  private async teamSettings(team: string): Promise<SandboxSettings | undefined> {
    try {
      return (await request(this.nc, getTeam, { name: team })).sandbox;
    } catch (error) {
      if (!(error instanceof HeadspaceError && error.code === ErrorCodes.teamNotFound)) {
        this.logger.warn(`sandbox settings of team ${team} unavailable (${(error as Error).message}); using the defaults (sandboxed, no network)`);
      }
      return undefined;
    }
  }
}
