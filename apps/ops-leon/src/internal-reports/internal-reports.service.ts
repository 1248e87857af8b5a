import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ErrorCodes, HeadspaceError, ingestException, parseOrThrow, reportException, type ReportOrigin } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { ErrorReporter } from '@headspace/platform';
import type { z } from 'zod';
import { IngestExceptionHandler } from '../ingest/ingest-exception/ingest-exception.handler';
import { CreateProjectHandler } from '../projects/create-project/create-project.handler';
import { InternalIngestKeys } from './internal-ingest-keys';
import { ProjectForReport } from './project-for-report';

type ReportRequest = z.output<typeof reportException.request>;
const MAX_TAGS = 50;

/**
 * Headspace's own reports into Leon: the project they belong to, then the very ingest path the
 * REST and Sentry endpoints take (same grouping, once per event id), with the internal key. Also
 * ops-leon's own error sink, so its errors are ingested in-process rather than sent to itself.
 */
@Injectable()
export class InternalReports implements OnModuleInit {
  private ingest!: IngestExceptionHandler;
  private createProject!: CreateProjectHandler;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly projects: ProjectForReport,
    private readonly keys: InternalIngestKeys,
    private readonly reporter: ErrorReporter,
  ) {}

  onModuleInit(): void {
    this.ingest = this.moduleRef.get(IngestExceptionHandler, { strict: false });
    this.createProject = this.moduleRef.get(CreateProjectHandler, { strict: false });
    this.reporter.useSink((body) => {
      const commandId = `report-exception:${body.eventId}`;
      const ctx: RequestContext = { subject: reportException.subject, kind: 'command', commandId, correlationId: commandId, headers: {} };
      return this.report(parseOrThrow(reportException.request, body, 'report-exception request'), ctx);
    });
  }

  async report(r: ReportRequest, ctx: RequestContext) {
    const project = await this.projects.of(r.origin, this.createProject);
    const publicKey = await this.keys.keyFor(project);
    const request = parseOrThrow(
      ingestException.request,
      {
        project,
        publicKey,
        report: { ...r.report, eventId: r.eventId, source: r.origin.kind === 'hook' ? 'hook' : 'service', tags: withOriginTags(r.report.tags, r.origin) },
        receivedAt: new Date().toISOString(),
      },
      'report-exception request',
    );
    try {
      return { project, ...(await this.ingest.handle(request, ctx)) };
    } catch (error) {
      if (error instanceof HeadspaceError && error.code === ErrorCodes.opsIngestKeyInvalid) this.keys.forget(project);
      throw error;
    }
  }
}

/** Where it came from, as tags Leon's group view and filters show; the origin's win over the report's own. */
function withOriginTags(tags: Record<string, string>, origin: ReportOrigin): Record<string, string> {
  const own: Record<string, string | undefined> = {
    service: origin.service,
    origin: origin.kind,
    run_id: origin.runId,
    session_id: origin.sessionId,
    team: origin.team,
    hook_event: origin.hook?.event,
    hook_type: origin.hook?.type,
    hook_command: origin.hook?.command.slice(0, 256),
    hook_exit_code: origin.hook?.exitCode?.toString(),
  };
  const added = Object.entries(own).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const kept = Object.entries(tags).filter(([key]) => own[key] === undefined);
  return Object.fromEntries([...kept.slice(0, MAX_TAGS - added.length), ...added]);
}
