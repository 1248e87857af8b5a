import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { sessionStreamId, type EventData, type sessionStarted } from '@headspace/contracts';
import { ConcurrencyError, EventStore, quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import { inContext, storedContext } from '@headspace/telemetry';
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { AgentSessionRunner, SessionInterrupted, type SessionLimits, type SessionOutcome, type SessionPorts } from './run-session/agent-session.runner';
import { SessionRecorder } from './session-recorder';
import { CLAUDE_CODE_SESSIONS, type ClaudeCodeSessions } from './claude-code/claude-code-sessions.factory';

export type SessionStart = Omit<EventData<typeof sessionStarted>, 'startedAt'>;

/** Builds what a session runs on (model, tools and hooks, governor, mail) from how it was started. */
export interface SessionPortsFactory {
  create(started: EventData<typeof sessionStarted>): Promise<{ ports: SessionPorts; limits: SessionLimits; close?: () => Promise<void> }>;
}
export const SESSION_PORTS_FACTORY = Symbol('SESSION_PORTS_FACTORY');

export interface SessionSupervisorSettings {
  leaseMs: number;
  sweepMs: number;
}
export const SESSION_SUPERVISOR_SETTINGS = Symbol('SESSION_SUPERVISOR_SETTINGS');

/** Says whether sessions may start here at all (SessionSandbox: SANDBOX.UNAVAILABLE without bubblewrap). */
export interface SessionStartGate {
  assertCanStart(): Promise<void>;
}
export const SESSION_START_GATE = Symbol('SESSION_START_GATE');

/** What `stop` did: recorded the end here (`stopped`), left it to the instance running it (`stopping`), or found nothing to stop (`ended` already, `unknown`: never started). */
export type SessionStopResult = 'stopped' | 'stopping' | 'ended' | 'unknown';

/** The owner a stopped session's lease is taken over by: `stop:<the summary its end records>`. */
const STOP_OWNER = 'stop:';
/** How long a stop holds the lease: far longer than a stop takes, so no sweep resumes the session meanwhile. */
const STOP_HELD_FOR = '1 day';
/** Time for a runner elsewhere that lost its lease to a stop to finish the append of the step it was in. */
const STEP_GRACE_MS = 1_000;
/**
 * How long `stop` waits for a runner here to stop between steps. A longer step (a slow tool) is not
 * waited for — the caller may hold a transaction — the runner records the end itself when it stops.
 */
const LOCAL_STOP_WAIT_MS = 5_000;

/**
 * Runs agent sessions, each in exactly one orchestrator instance: a session is run under a lease
 * (compare-and-set on expiry, renewed while it runs), and a sweep re-leases running sessions whose
 * instance died, resuming them from their streams. Shutdown interrupts sessions between steps and
 * releases their leases so another instance (or the next start) carries on at once. `stop` ends a
 * session for good (`cancelled`), between steps, wherever it runs.
 */
@Injectable()
export class SessionSupervisor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SessionSupervisor.name);
  private readonly owner = `orchestrator-${randomUUID()}`;
  private readonly running = new Map<string, { abort: AbortController; done: Promise<SessionOutcome | undefined> }>();
  private readonly waiters = new Map<string, Array<(outcome: SessionOutcome) => void>>();
  private sweepTimer?: NodeJS.Timeout;
  private readonly q: string;

  constructor(
    private readonly store: EventStore,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(SESSION_PORTS_FACTORY) private readonly factory: SessionPortsFactory,
    @Inject(SESSION_SUPERVISOR_SETTINGS) private readonly settings: SessionSupervisorSettings,
    @Optional() @Inject(SESSION_START_GATE) private readonly gate?: SessionStartGate,
    @Optional() @Inject(CLAUDE_CODE_SESSIONS) private readonly claudeCode?: ClaudeCodeSessions,
  ) {
    this.q = quoteIdent(schema);
  }

  /** How long after a stop was asked the sweep records the end of a session run elsewhere: a lease renewal (a third of the lease) and a step's last append. */
  get stopSettleMs(): number {
    return Math.floor(this.settings.leaseMs / 3) + STEP_GRACE_MS;
  }

  onApplicationBootstrap(): void {
    const sweep = () => {
      const warn = (error: unknown) => this.logger.warn(`session sweep: ${(error as Error).message}`);
      void this.resumeOrphans()
        .catch(warn)
        .then(() => this.finishStops(this.stopSettleMs))
        .catch(warn)
        .finally(() => {
          this.sweepTimer = setTimeout(sweep, this.settings.sweepMs);
          this.sweepTimer.unref();
        });
    };
    sweep();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearTimeout(this.sweepTimer);
    for (const { abort } of this.running.values()) abort.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** Records the session's start and runs it here. Starting an existing session id just (re)launches it. */
  async start(start: SessionStart): Promise<string> {
    // Refused before anything is recorded: a session that cannot be sandboxed never starts.
    await this.gate?.assertCanStart();
    const recorder = await SessionRecorder.load(this.store, start.sessionId);
    await recorder.record({ type: 'start-session', ...start, now: new Date().toISOString() });
    await this.launch(start.sessionId);
    return start.sessionId;
  }

  /** Resolves with the session's outcome when it ends (in this instance). */
  whenEnded(sessionId: string): Promise<SessionOutcome> {
    return new Promise((resolve) => this.waiters.set(sessionId, [...(this.waiters.get(sessionId) ?? []), resolve]));
  }

  /**
   * Stops a session for good, between steps, and records its end: `cancelled`, with `summary`. First
   * its lease is taken over (owner `stop:<summary>`, far from expiring): no instance resumes the
   * session from then on, and that row is the durable note of the stop. Run here, its runner is
   * aborted at once — it stops after the step in flight (a model call or a tool is not cut off
   * mid-way) — and the end is recorded as soon as it has (before this returns `stopped`, unless the
   * step outlasts `LOCAL_STOP_WAIT_MS`: then `stopping`). Run by another instance, that instance
   * loses the lease at its next renewal, stops between steps and records the end; if it died
   * meanwhile, a sweep records it once `stopSettleMs` has passed. Idempotent: a session that ended
   * meanwhile records nothing, and a stop asked twice ends it once.
   */
  async stop(sessionId: string, summary: string): Promise<SessionStopResult> {
    const recorder = await SessionRecorder.load(this.store, sessionId);
    if (recorder.state.status === 'none') return 'unknown';
    if (recorder.state.status === 'ended') return 'ended';
    const owner = `${STOP_OWNER}${summary}`;
    await this.pool.query(
      `INSERT INTO ${this.q}.session_leases (session_id, owner, expires_at) VALUES ($1, $2, now() + interval '${STOP_HELD_FOR}')
       ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at`,
      [sessionId, owner],
    );
    const local = this.running.get(sessionId);
    if (!local) return 'stopping';
    local.abort.abort();
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), LOCAL_STOP_WAIT_MS)));
    const settled = await Promise.race([local.done.then(() => true), waited]);
    clearTimeout(timer);
    if (!settled) return 'stopping';
    // Usually recorded by the runner's own finish already; this also lets go of the lease of one that ended by itself meanwhile.
    await this.finishStop(sessionId, owner);
    return 'stopped';
  }

  /**
   * Records the end of every stopped session whose stop was asked at least `settleMs` ago (by then
   * the instance running it has lost its lease and stopped between steps, or died), then releases
   * its lease.
   */
  async finishStops(settleMs: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ session_id: string; owner: string }>(
      `SELECT session_id, owner FROM ${this.q}.session_leases
        WHERE owner LIKE '${STOP_OWNER}%' AND expires_at - interval '${STOP_HELD_FOR}' <= now() - $1 * interval '1 millisecond'`,
      [settleMs],
    );
    for (const { session_id, owner } of rows) await this.finishStop(session_id, owner);
    return rows.map((r) => r.session_id);
  }

  /** Running sessions no live instance holds: take them over and resume them. */
  async resumeOrphans(): Promise<string[]> {
    const { rows } = await this.pool.query<{ session_id: string }>(
      `SELECT s.session_id FROM ${this.q}.agent_sessions s LEFT JOIN ${this.q}.session_leases l USING (session_id)
       WHERE s.status = 'running' AND (l.session_id IS NULL OR l.expires_at < now()) ORDER BY s.started_at LIMIT 50`,
    );
    const launched: string[] = [];
    for (const { session_id } of rows) if (await this.launch(session_id)) launched.push(session_id);
    return launched;
  }

  private async launch(sessionId: string): Promise<boolean> {
    if (this.running.has(sessionId) || !(await this.acquire(sessionId))) return false;
    const abort = new AbortController();
    const done = this.runLeased(sessionId, abort);
    this.running.set(sessionId, { abort, done });
    void done.finally(() => this.running.delete(sessionId));
    return true;
  }

  private async runLeased(sessionId: string, abort: AbortController): Promise<SessionOutcome | undefined> {
    let ended = false;
    const renew = setInterval(() => {
      void this.renew(sessionId).then(
        (held) => held || abort.abort(),
        () => undefined,
      );
    }, Math.max(50, Math.floor(this.settings.leaseMs / 3)));
    renew.unref();
    let closePorts: (() => Promise<void>) | undefined;
    try {
      const recorder = await SessionRecorder.load(this.store, sessionId);
      const started = recorder.state.started;
      if (!started || recorder.state.status === 'ended') return undefined;
      // In the trace its start was recorded in (the run's task attempt), wherever and whenever it resumes.
      const outcome = await inContext(storedContext(await this.startMetadata(sessionId)), async () => {
        if (started.runtime === 'claude-code') return this.runClaudeCode(recorder, abort.signal);
        const { ports, limits, close } = await this.factory.create(started);
        closePorts = close;
        return new AgentSessionRunner(recorder, ports, limits, abort.signal).run();
      });
      ended = true;
      for (const resolve of this.waiters.get(sessionId) ?? []) resolve(outcome);
      this.waiters.delete(sessionId);
      return outcome;
    } catch (error) {
      if (!(error instanceof SessionInterrupted)) this.logger.error(`session ${sessionId}: ${(error as Error).message}`);
      return undefined;
    } finally {
      clearInterval(renew);
      await closePorts?.().catch(() => undefined);
      await this.release(sessionId).catch(() => undefined);
      // Interrupted by a stop (asked here or elsewhere): its end is recorded now that the runner has stopped, not at a sweep.
      if (!ended) await this.finishStopOf(sessionId).catch((error: Error) => this.logger.warn(`session ${sessionId}: stop: ${error.message}`));
    }
  }

  /** Finishes the stop of the session if one holds its lease. */
  private async finishStopOf(sessionId: string): Promise<void> {
    const { rows } = await this.pool.query<{ owner: string }>(`SELECT owner FROM ${this.q}.session_leases WHERE session_id = $1 AND owner LIKE '${STOP_OWNER}%'`, [sessionId]);
    if (rows[0]) await this.finishStop(sessionId, rows[0].owner);
  }

  /**
   * Records the end of a stopped session (no runner of it is left: it stopped or died) and lets go
   * of the stop's lease. The end's command id is the session's: recording it again appends nothing.
   */
  private async finishStop(sessionId: string, owner: string): Promise<void> {
    const summary = owner.slice(STOP_OWNER.length);
    for (let attempt = 0; ; attempt++) {
      try {
        const recorder = await SessionRecorder.load(this.store, sessionId);
        if (recorder.state.status !== 'running') break;
        await recorder.record({ type: 'end-session', sessionId, exitReason: 'cancelled', summary, now: new Date().toISOString() });
        const { turns, usage } = recorder.state;
        for (const resolve of this.waiters.get(sessionId) ?? []) resolve({ exitReason: 'cancelled', summary, turns, usage });
        this.waiters.delete(sessionId);
        break;
      } catch (error) {
        // A last step of a runner elsewhere landed after the load: read the stream again.
        if (!(error instanceof ConcurrencyError) || attempt >= 5) throw error;
      }
    }
    await this.pool.query(`DELETE FROM ${this.q}.session_leases WHERE session_id = $1 AND owner = $2`, [sessionId, owner]);
  }

  /** A `claude-code` session runs the CLI; an orchestrator without that runtime ends it saying so rather than leaving it running. */
  private async runClaudeCode(recorder: SessionRecorder, signal: AbortSignal): Promise<SessionOutcome> {
    if (this.claudeCode) return (await this.claudeCode.runner(recorder, signal)).run();
    const summary = 'This orchestrator has no Claude Code runtime';
    await recorder.record({ type: 'end-session', sessionId: recorder.sessionId, exitReason: 'error', summary, error: summary, now: new Date().toISOString() });
    return { exitReason: 'error', summary, turns: recorder.state.turns, usage: recorder.state.usage };
  }

  /** The metadata of the session's start: its stored trace context. */
  private async startMetadata(sessionId: string): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.pool.query<{ metadata: Record<string, unknown> }>(`SELECT metadata FROM ${this.q}.events WHERE stream_id = $1 AND stream_version = 1`, [sessionStreamId(sessionId)]);
    return rows[0]?.metadata;
  }

  private async acquire(sessionId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${this.q}.session_leases (session_id, owner, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE ${this.q}.session_leases.expires_at < now() OR ${this.q}.session_leases.owner = EXCLUDED.owner`,
      [sessionId, this.owner, this.settings.leaseMs],
    );
    return rowCount === 1;
  }

  private async renew(sessionId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${this.q}.session_leases SET expires_at = now() + $3 * interval '1 millisecond' WHERE session_id = $1 AND owner = $2`,
      [sessionId, this.owner, this.settings.leaseMs],
    );
    return rowCount === 1;
  }

  private async release(sessionId: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.q}.session_leases WHERE session_id = $1 AND owner = $2`, [sessionId, this.owner]);
  }
}
