import { Inject, Injectable, Logger } from '@nestjs/common';
import { getTeammateInjection, sessionStreamId, type EventData, type teammateSpawned, type teammateTerminated } from '@headspace/contracts';
import { EventStore, quoteIdent } from '@headspace/event-store';
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

/**
 * Live teammates: a spawned teammate gets a real agent session, and a terminated one has it stopped
 * (its file locks are given back by the team-manager). Both are idempotent per teammate — the session id is derived from
 * the teammate's session key and each step checks the session's stream first — so a redelivered
 * event, or one handled again after a crash, starts or stops nothing twice. The session itself is
 * the supervisor's: it runs under a lease, is resumed by whichever orchestrator is up, and is
 * stopped by it (`SessionSupervisor.stop`).
 */
@Injectable()
export class TeammateSessions {
  private readonly logger = new Logger(TeammateSessions.name);

  constructor(
    private readonly supervisor: SessionSupervisor,
    private readonly store: EventStore,
    private readonly llm: LlmBackendProvider,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

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
   * Stops the teammate's session through the supervisor: between steps, its end recorded
   * `cancelled` with the termination's reason — at once when it runs in this instance, by the
   * instance running it (or the supervisor's sweep) otherwise. A teammate terminated before its
   * session started gets a session that starts and ends at once, so a spawn handled late starts
   * nothing.
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
    const stopped = await this.supervisor.stop(sessionId, stoppedSummary(terminated.reason));
    this.logger.log(`teammate ${terminated.name} of ${source.team} terminated (${terminated.reason}): session ${sessionId} ${stopped}`);
    return { sessionId, stopping: stopped === 'stopping' };
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
