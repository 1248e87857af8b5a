import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { appendedPositionOf, ProcessorRunner, quoteIdent, type LogPosition } from '@headspace/event-store';
import { registerReadPositionGate, type ReadPositionGate } from '@headspace/messaging';
import type { Pool } from 'pg';
import type { BaseConfig } from '../config/base-config.schema';
import { APP_CONFIG, PG_POOL, SERVICE_NAME, SERVICE_SCHEMA } from '../platform.tokens';

/** How often a wait looks again when a read model's lease is held by another replica (no signal reaches this one). */
const REMOTE_LOOK_MS = 50;
/** The same when every read model still behind runs here: their "caught up" resolves first, this is a safety net. */
const LOCAL_LOOK_MS = 500;

/**
 * Answers "have this service's read models passed position P of its log?" for queries that ask to
 * read their own writes (serve-requests' Hs-Min-Position). The read models are the processors this
 * service's providers hold (`runner`), except those whose checkpoint trails their effects (the relay).
 *
 * A processor has passed P when its stored checkpoint is at or past P, or when no event of its types
 * lies between its checkpoint and P: a typed processor stores its checkpoint lazily while it skips
 * others' events, but commits it with every batch it handles, so nothing of its own can hide behind
 * it. Only committed events count — the caller's are (it got their reply), and one that commits
 * later behind the fence is not the caller's write.
 */
@Injectable()
export class ReadPositionGateService implements ReadPositionGate, OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly maxWaitMs: number;
  private runners: ProcessorRunner[] = [];
  private readModels = '[]';
  private unregister?: () => void;
  /** One "caught up" wait per runner shared by the queries waiting on it. */
  private readonly catchingUp = new Map<ProcessorRunner, Promise<void>>();

  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_NAME) private readonly service: string,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
    @Inject(APP_CONFIG) config: BaseConfig,
  ) {
    this.maxWaitMs = config.HS_READ_WAIT_MAX_MS;
  }

  onApplicationBootstrap(): void {
    const found = new Set<ProcessorRunner>();
    for (const wrapper of this.discovery.getProviders()) {
      const runner = (wrapper.instance as { runner?: unknown } | undefined)?.runner;
      if (runner instanceof ProcessorRunner && runner.reads.schema === this.schema && runner.reads.checkpointWithEffects) found.add(runner);
    }
    this.runners = [...found];
    this.readModels = JSON.stringify(this.runners.map((r) => ({ name: r.name, types: r.reads.types ?? null })));
    this.unregister = registerReadPositionGate(this.service, this);
  }

  beforeApplicationShutdown(): void {
    this.unregister?.();
  }

  appended(): LogPosition | undefined {
    return appendedPositionOf(this.schema);
  }

  async waitFor(position: LogPosition, timeoutMs: number): Promise<boolean> {
    if (this.runners.length === 0) return true;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const behind = await this.behind(position);
      if (behind.length === 0) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.progress(behind, left);
    }
  }

  /** The runners that have not passed `position`. */
  private async behind(position: LogPosition): Promise<ProcessorRunner[]> {
    const q = quoteIdent(this.schema);
    const { rows } = await this.pool.query<{ name: string }>({
      name: `hs-read-gate-${this.schema}`,
      text: `SELECT p.name FROM jsonb_to_recordset($3::jsonb) AS p (name text, types text[])
               LEFT JOIN ${q}.checkpoints c ON c.processor = p.name
              CROSS JOIN LATERAL (SELECT coalesce(c.transaction_id, '0'::xid8) AS tx, coalesce(c.global_position, 0) AS pos) cp
              WHERE (cp.tx, cp.pos) < ($1::xid8, $2::bigint)
                AND EXISTS (SELECT 1 FROM ${q}.events e
                             WHERE (e.transaction_id, e.global_position) > (cp.tx, cp.pos)
                               AND (e.transaction_id, e.global_position) <= ($1::xid8, $2::bigint)
                               AND (p.types IS NULL OR e.type = ANY (p.types)))`,
      values: [position.transactionId, position.globalPosition.toString(), this.readModels],
    });
    const names = new Set(rows.map((r) => r.name));
    return this.runners.filter((r) => names.has(r.name));
  }

  /**
   * Until a runner still behind may have moved: those whose lease this process holds say so when
   * they have caught up (and poll eagerly meanwhile); a lease held elsewhere sends no signal here.
   */
  private progress(behind: ProcessorRunner[], leftMs: number): Promise<unknown> {
    const local = behind.filter((r) => r.isLeaseHolder);
    const lookMs = Math.min(leftMs, local.length === behind.length ? LOCAL_LOOK_MS : REMOTE_LOOK_MS);
    let timer: NodeJS.Timeout | undefined;
    const look = new Promise<void>((resolve) => (timer = setTimeout(resolve, lookMs)));
    return Promise.race([look, ...local.map((r) => this.caughtUp(r, leftMs))]).finally(() => clearTimeout(timer));
  }

  private caughtUp(runner: ProcessorRunner, leftMs: number): Promise<void> {
    let wait = this.catchingUp.get(runner);
    if (!wait) {
      wait = runner
        .waitUntilCaughtUp(leftMs)
        .catch(() => undefined)
        .finally(() => this.catchingUp.delete(runner));
      this.catchingUp.set(runner, wait);
    }
    return wait;
  }
}
