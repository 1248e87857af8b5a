import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, exceptionGroupStreamId } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA, Sweeper } from '@headspace/platform';
import { storedContext, withSpan } from '@headspace/telemetry';
import type { Pool } from 'pg';
import type { RemediationConfig } from './remediation.config';
import { RemediationSteps } from './remediation-steps';
import { RemediationTable, type Remediation } from './remediation-table';

const BATCH = 32;
const MAX_BACKOFF_MS = 60_000;

/** The group moved on without us (the operator dismissed, resolved or fixed it): the step has nothing left to do. */
const overtaken = (error: unknown) =>
  error instanceof HeadspaceError && (error.code === ErrorCodes.opsIllegalTransition || error.code === ErrorCodes.opsGroupNotFound || error.code === ErrorCodes.opsProjectNotFound);

/** A step that failed for a passing reason and is set to run again. */
class StepToRetry extends Error {
  constructor(cause: unknown) {
    super((cause as Error).message, { cause });
    this.name = (cause as Error).name ?? 'Error';
  }
}

/**
 * Runs the remediation steps that have come due (ADR 0024), one group at a time, under the sweeper
 * lease. Network calls (models, approvals, runs) happen here, never inside a consumer's inbox
 * transaction, so a slow model cannot hold the cluster-wide xid8 fence open. A step that fails for
 * a passing reason is tried again with backoff; one the group's lifecycle no longer allows is dropped.
 */
@Injectable()
export class RemediationWorker extends Sweeper {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
    @Inject(APP_CONFIG) config: RemediationConfig,
    private readonly table: RemediationTable,
    private readonly steps: RemediationSteps,
  ) {
    super(pool, schema, { name: 'remediation', intervalMs: config.HS_OPS_REMEDIATION_POLL_MS });
  }

  protected async sweep(): Promise<number | void> {
    const due = await this.table.due(BATCH);
    for (const r of due) {
      if (this.stopping) return;
      await this.take(r);
    }
    if (due.length === BATCH) return 0;
  }

  private async take(r: Remediation): Promise<void> {
    if (!r.step || !r.stepId) return;
    const current = { ...r, stepId: r.stepId };
    // Each step is a span in the exception group's trace; the fix run it starts links back to it.
    const group = storedContext(await this.groupMetadata(r.groupId).catch(() => undefined));
    await withSpan(`remediation ${r.step}`, { ...(group ? { parent: group } : { root: true }), attributes: { 'headspace.group_id': r.groupId, 'headspace.remediation.step': r.step, 'headspace.remediation.attempt': r.attempts + 1 } }, async () => {
      const failed = await this.attempt(r, current);
      if (failed) throw failed; // the span fails; the step is already set to be tried again
    }).catch((error: unknown) => {
      if (!(error instanceof StepToRetry)) throw error;
    });
  }

  /** The metadata of the group's first event: the trace the group was opened in. */
  private async groupMetadata(groupId: string): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.pool.query<{ metadata: Record<string, unknown> }>(`SELECT metadata FROM ${quoteIdent(this.schema)}.events WHERE stream_id = $1 AND stream_version = 1`, [exceptionGroupStreamId(groupId)]);
    return rows[0]?.metadata;
  }

  /** Runs the step and records what came of it; a step to try again later is answered with why. */
  private async attempt(r: Remediation, current: Remediation & { stepId: string }): Promise<StepToRetry | undefined> {
    try {
      const next = await this.steps.run(current);
      const finished = await this.table.finish(r.groupId, current.stepId, next);
      if (!finished) this.logger.log(`group ${r.groupId}: step ${r.step} was replaced while it ran; the newer one stands`);
    } catch (error) {
      if (overtaken(error)) {
        this.logger.log(`group ${r.groupId}: ${r.step} dropped, ${(error as Error).message}`);
        await this.table.finish(r.groupId, current.stepId, { step: null });
        return;
      }
      const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(r.attempts, 10));
      this.logger.warn(`group ${r.groupId}: ${r.step} failed (attempt ${r.attempts + 1}, again in ${delay} ms): ${(error as Error).message}`);
      await this.table.retryLater(r.groupId, current.stepId, (error as Error).message, delay);
      return new StepToRetry(error);
    }
    return undefined;
  }
}
