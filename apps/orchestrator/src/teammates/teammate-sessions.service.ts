import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { getTeammateInjection, sessionStreamId, type EventData, type teammateSpawned, type teammateTerminated } from '@headspace/contracts';
import { ConcurrencyError, EventStore, quoteIdent } from '@headspace/event-store';
import { request, type SendRequestOptions } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { mkdir } from 'node:fs/promises';
import type { AppConfig } from '../config';
import { LlmBackendProvider } from '../sessions/ports/llm-backend.provider';
import { SessionRecorder } from '../sessions/session-recorder';
import { SessionSupervisor } from '../sessions/session-supervisor';
import { DEFAULT_TEAMMATE_MODEL, stoppedSummary, teammatePrompt, teammateSessionIdFor, teammateSessionStart, teammateWorkspace, TEAMMATE_SITUATION } from './teammate-session';

type Spawned = EventData<typeof teammateSpawned>;
type Terminated = EventData<typeof teammateTerminated>;

/** Where a teammate event came from: its team, and its id and position in the team-manager's log. */
export interface TeammateEventSource {
  team: string;
  eventId: string;
  /** A position token of the event (`team-manager:<tx>:<pos>`), for reading the roster at least that far. */
  position?: string;
}

const now = () => new Date().toISOString();

/** The owner a stopped teammate session's lease is taken over by (`teammate-stop:<termination reason>`). */
const STOP_OWNER = 'teammate-stop:';
/** How long such a lease is held: far longer than a stop takes, so no sweep resumes the session meanwhile. */
const HELD_FOR = '1 day';
/** Time for a runner told to stop to finish the append of the step it was in. */
const STEP_GRACE_MS = 1_000;

/**
 * Live teammates: a spawned teammate gets a real agent session, and a terminated one has it stopped
 * (its file locks are given back by the team-manager). Both are idempotent per teammate — the session id is derived from
 * the teammate's session key and each step checks the session's stream first — so a redelivered
 * event, or one handled again after a crash, starts or stops nothing twice. The session itself is
 * the supervisor's: it runs under a lease and is resumed by whichever orchestrator is up.
 */
@Injectable()
export class TeammateSessions implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TeammateSessions.name);
  private sweepTimer?: NodeJS.Timeout;
  private stopping = false;

  constructor(
    private readonly supervisor: SessionSupervisor,
    private readonly store: EventStore,
    private readonly llm: LlmBackendProvider,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** How long after its stop was asked a session's end is recorded: a lease renewal (a third of the lease) and a step's last append. */
  get settleMs(): number {
    return Math.floor(this.config.SESSION_LEASE_MS / 3) + STEP_GRACE_MS;
  }

  onApplicationBootstrap(): void {
    const sweep = () => {
      void this.finishStops(this.settleMs)
        .catch((error: Error) => this.logger.warn(`teammate stops: ${error.message}`))
        .finally(() => {
          if (this.stopping) return;
          this.sweepTimer = setTimeout(sweep, Math.min(this.config.SESSION_SWEEP_MS, this.settleMs));
          this.sweepTimer.unref();
        });
    };
    sweep();
  }

  beforeApplicationShutdown(): void {
    this.stopping = true;
    clearTimeout(this.sweepTimer);
  }

  /**
   * Starts the teammate's session unless its stream exists already (started before, or stopped
   * before it ever ran). Its first user message is the team state the team-manager tells a new
   * teammate, read at least as far as the spawn, then the spawn's prompt.
   */
  async start(source: TeammateEventSource, spawned: Spawned): Promise<'started' | 'exists'> {
    const sessionId = teammateSessionIdFor(spawned.sessionKey);
    if (await this.exists(sessionId)) return 'exists';
    const readAfter: SendRequestOptions = source.position ? { minPosition: source.position } : {};
    const { injection } = await request(this.nc, getTeammateInjection, { team: source.team, member: spawned.name }, readAfter);
    const workspace = teammateWorkspace(this.config.HS_WORKSPACES_DIR, source.team);
    await mkdir(workspace, { recursive: true });
    await this.supervisor.start(teammateSessionStart(source.team, spawned, { prompt: teammatePrompt(injection, spawned.initialPrompt), workspace, simulated: this.llm.simulated }));
    this.logger.log(`teammate ${spawned.name} of ${source.team}: session ${sessionId} started`);
    return 'started';
  }

  /**
   * Stops the teammate's session. A session running anywhere is not cut off mid-step: its lease is
   * taken over (owner `teammate-stop:<reason>`, far from expiring), so the instance running it loses
   * the lease at its next renewal and stops between steps, and no instance resumes it; once that has
   * had time to happen, `finishStops` records its end — `cancelled`, with the termination's reason —
   * and lets go of the lease. The lease row is the durable note of the stop: an orchestrator that
   * dies meanwhile finishes it at its next sweep. A teammate terminated before its session started
   * gets a session that starts and ends at once, so a spawn handled late starts nothing.
   */
  async stop(source: TeammateEventSource, terminated: Terminated): Promise<{ sessionId: string; stopping: boolean }> {
    const sessionId = teammateSessionIdFor(terminated.sessionKey);
    const recorder = await SessionRecorder.load(this.store, sessionId);
    if (recorder.state.status === 'ended') return { sessionId, stopping: false };
    if (recorder.state.status === 'none') {
      await recorder.record({ ...this.neverRan(source.team, sessionId, terminated), now: now() });
      await recorder.record({ type: 'end-session', sessionId, exitReason: 'cancelled', summary: stoppedSummary(terminated.reason), now: now() });
      return { sessionId, stopping: false };
    }
    await this.store.pool.query(
      `INSERT INTO ${this.q}.session_leases (session_id, owner, expires_at) VALUES ($1, $2, now() + interval '${HELD_FOR}')
       ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at`,
      [sessionId, `${STOP_OWNER}${terminated.reason}`],
    );
    this.logger.log(`teammate ${terminated.name} of ${source.team} terminated (${terminated.reason}): stopping session ${sessionId}`);
    return { sessionId, stopping: true };
  }

  /**
   * Records the end of every session whose stop was asked at least `settleMs` ago (by then its
   * runner has lost its lease and stopped between steps), then releases its lease. Idempotent: the
   * end's command id is the session's, and a session that ended meanwhile records nothing.
   */
  async finishStops(settleMs: number): Promise<string[]> {
    const { rows } = await this.store.pool.query<{ session_id: string; owner: string }>(
      `SELECT session_id, owner FROM ${this.q}.session_leases
        WHERE owner LIKE '${STOP_OWNER}%' AND expires_at - interval '${HELD_FOR}' <= now() - $1 * interval '1 millisecond'`,
      [settleMs],
    );
    const stopped: string[] = [];
    for (const { session_id: sessionId, owner } of rows) {
      for (let attempt = 0; ; attempt++) {
        try {
          const recorder = await SessionRecorder.load(this.store, sessionId);
          await recorder.record({ type: 'end-session', sessionId, exitReason: 'cancelled', summary: stoppedSummary(owner.slice(STOP_OWNER.length)), now: now() });
          break;
        } catch (error) {
          // A step of the runner landed after the load: read the stream again.
          if (!(error instanceof ConcurrencyError) || attempt >= 5) throw error;
        }
      }
      await this.store.pool.query(`DELETE FROM ${this.q}.session_leases WHERE session_id = $1 AND owner = $2`, [sessionId, owner]);
      stopped.push(sessionId);
    }
    return stopped;
  }

  private async exists(sessionId: string): Promise<boolean> {
    const { rows } = await this.store.pool.query(`SELECT 1 FROM ${this.q}.events WHERE stream_id = $1 LIMIT 1`, [sessionStreamId(sessionId)]);
    return rows.length > 0;
  }

  private get q(): string {
    return quoteIdent(this.store.schema);
  }

  /** The start of a session that never ran: what the termination knows of the teammate. */
  private neverRan(team: string, sessionId: string, terminated: Terminated) {
    return {
      type: 'start-session' as const,
      sessionId,
      team,
      persona: terminated.name,
      kind: 'task' as const,
      model: DEFAULT_TEAMMATE_MODEL,
      effort: 'standard' as const,
      runtime: 'built-in' as const,
      simulated: this.llm.simulated,
      prompt: `Teammate ${terminated.name} was terminated (${terminated.reason}) before its session started.`,
      situation: TEAMMATE_SITUATION,
    };
  }
}
