import { resolve } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { createOpsProject, ErrorCodes, HeadspaceError, parseOrThrow, type ReportOrigin } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { APP_CONFIG, ReadModel } from '@headspace/platform';
import type { AppConfig } from '../config';
import { CreateProjectHandler } from '../projects/create-project/create-project.handler';
import { ProjectDirectory } from '../projects/project-directory';
import { OpsProjectRow } from '../projects/project.entity';
import { repositoryKey } from './repository-key';

type Config = Pick<AppConfig, 'HS_OPS_INTERNAL_PROJECT' | 'HS_OPS_INTERNAL_REPOSITORY' | 'HS_OPS_STATE_CACHE_MS'>;

/**
 * Which project an internal report belongs to: a hook failure to the project whose repository is
 * its run's source, anything else (and a hook failure no project claims) to the internal project,
 * which is created the first time it is needed.
 */
@Injectable()
export class ProjectForReport {
  private byRepository?: { keys: Map<string, string>; loadedAt: number };
  private internal?: Promise<string>;

  constructor(
    private readonly reads: ReadModel,
    private readonly directory: ProjectDirectory,
    @Inject(APP_CONFIG) private readonly config: Config,
  ) {}

  async of(origin: ReportOrigin, createProject: CreateProjectHandler): Promise<string> {
    if (origin.kind === 'hook' && origin.source) {
      const owner = (await this.repositories()).get(repositoryKey(origin.source));
      if (owner) return owner;
    }
    this.internal ??= this.ensureInternal(createProject).catch((error: unknown) => {
      this.internal = undefined;
      throw error;
    });
    return this.internal;
  }

  /** Repository key → project, from the projects read model (first project by name wins a shared repository). */
  private async repositories(): Promise<Map<string, string>> {
    const now = Date.now();
    if (this.byRepository && now - this.byRepository.loadedAt < this.config.HS_OPS_STATE_CACHE_MS) return this.byRepository.keys;
    const rows = await this.reads.rows(OpsProjectRow, {}, { orderBy: [{ project: 'desc' }], limit: 10_000 });
    const keys = new Map(rows.map((row) => [repositoryKey(row.repository), row.project]));
    this.byRepository = { keys, loadedAt: now };
    return keys;
  }

  private async ensureInternal(createProject: CreateProjectHandler): Promise<string> {
    const project = this.config.HS_OPS_INTERNAL_PROJECT;
    try {
      await this.directory.resolve(project);
      return project;
    } catch (error) {
      if (!(error instanceof HeadspaceError && error.code === ErrorCodes.opsProjectNotFound)) throw error;
    }
    const request = parseOrThrow(
      createOpsProject.request,
      { project, displayName: 'Headspace', repository: repositoryOf(this.config.HS_OPS_INTERNAL_REPOSITORY), actor: 'ops-leon' },
      'internal project',
    );
    const commandId = `internal-project:${project}`;
    const ctx: RequestContext = { subject: createOpsProject.subject, kind: 'command', commandId, correlationId: commandId, headers: {} };
    await createProject.handle(request, ctx).catch((error: unknown) => {
      // Another instance (or an operator) made it first: it is there either way.
      if (!(error instanceof HeadspaceError && error.code === ErrorCodes.opsProjectAlreadyExists)) throw error;
    });
    return project;
  }
}

/** A directory is recorded absolute (`.` is the checkout ops-leon runs from); a URL as it is. */
const repositoryOf = (repository: string) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(repository) || /^[\w.-]+@[\w.-]+:/.test(repository) ? repository : resolve(repository));
