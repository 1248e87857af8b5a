import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, exceptionIngestStreamId, HeadspaceError, ingestException } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { APP_CONFIG } from '@headspace/platform';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { groupIdOf, groupingOf } from '../../grouping/fingerprint';
import { opsMetrics } from '../../ops-metrics';
import { ProjectDirectory } from '../../projects/project-directory';
import { GroupGate } from '../group-gate';
import { IngestGroupCommit } from '../ingest-group-commit';
import { RateLimiter } from '../rate-limiter';
import { recordableReport } from '../redact-report';

/**
 * `ingest-exception` (from the gateway's ingest routes): key checked, rate limited, fingerprinted,
 * then recorded ONCE per (project, client event id) as `exception.received` on one of the
 * project's ingest shards — a deterministic event id makes a client's retry a no-op — in one
 * statement with the receipts of concurrent requests (IngestGroupCommit), answered after its
 * commit. Counting is the groups projection's job, so a storm of one fingerprint never contends on
 * the group's stream.
 */
@Controller()
export class IngestExceptionHandler {
  private readonly limiter: RateLimiter;

  constructor(
    private readonly receipts: IngestGroupCommit,
    private readonly directory: ProjectDirectory,
    private readonly gate: GroupGate,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.limiter = new RateLimiter(config.HS_OPS_RATE_LIMIT_PER_MIN);
  }

  @MessagePattern(ingestException)
  async handle(@Payload() r: z.output<typeof ingestException.request>, @Ctx() ctx: RequestContext) {
    const project = await this.directory.authorise(r.project, r.publicKey).catch((error: unknown) => {
      opsMetrics.refused(r.project, (error as HeadspaceError).code === ErrorCodes.opsIngestKeyInvalid ? 'key' : 'project');
      throw error;
    });
    if (!this.limiter.take(project.project, Date.now())) {
      opsMetrics.refused(project.project, 'rate');
      throw new HeadspaceError(ErrorCodes.opsRateLimited, `Project "${project.project}" sent more than ${this.config.HS_OPS_RATE_LIMIT_PER_MIN} events in the last minute`, {
        details: { limitPerMinute: this.config.HS_OPS_RATE_LIMIT_PER_MIN, retryAfterSeconds: 60 },
      });
    }
    const grouping = groupingOf(r.report);
    const groupId = groupIdOf(project.projectId, grouping.fingerprint);
    const report = recordableReport(r.report, grouping.frames);
    const shard = parseInt(report.eventId.slice(0, 8), 16) % this.config.HS_OPS_INGEST_SHARDS;
    const data = { project: project.project, projectId: project.projectId, groupId, fingerprint: grouping.fingerprint, receivedAt: r.receivedAt, report };
    const appended = await this.receipts.append({
      streamId: exceptionIngestStreamId(project.projectId, shard),
      events: [{ type: 'exception.received', data }],
      context: { correlationId: ctx.correlationId, causationId: ctx.causationId, traceparent: ctx.traceparent, tracestate: ctx.tracestate },
      commandId: `ingest:${project.projectId}:${report.eventId}`,
    });
    const counted = !appended.replayed;
    if (counted) opsMetrics.ingested(project.project, report.level);
    // Also on a retry: the first attempt may have died before the group was opened.
    await this.gate.afterIngest(project, groupId, grouping, report, r.receivedAt, counted, ctx);
    return { eventId: report.eventId, groupId, accepted: counted };
  }
}
