import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { sessionStreamId, type EventData, type sessionStarted } from '@headspace/contracts';
import { EventStore, quoteIdent } from '@headspace/event-store';
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

/**
 * Runs agent sessions, each in exactly one orchestrator instance: a session is run under a lease
 * (compare-and-set on expiry, renewed while it runs), and a sweep re-leases running sessions whose
 * instance died, resuming them from their streams. Shutdown interrupts sessions between steps and
 * releases their leases so another instance (or the next start) carries on at once.
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

  onApplicationBootstrap(): void {
    const sweep = () => {
      void this.resumeOrphans()
        .catch((error) => this.logger.warn(`session sweep: ${(error as Error).message}`))
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
    }
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
