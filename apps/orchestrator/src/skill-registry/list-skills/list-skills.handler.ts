import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { HeadspaceError, listSkills } from '@headspace/contracts';
import { APP_CONFIG } from '@headspace/platform';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { RunSourcePolicy } from '../../runs/run-source.policy';
import { listingOf } from '../skill-discovery';
import { SkillRegistry } from '../skill-registry.service';

/** `hs.qry.orchestrator.list-skills`: the skills a session in the workspace and team would be offered, and the SKILL.md files skipped. */
@Controller()
export class ListSkillsHandler {
  private readonly sources: RunSourcePolicy;

  constructor(
    private readonly registry: SkillRegistry,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'HS_SOURCE_ROOTS' | 'HS_WORKSPACES_DIR'>,
  ) {
    this.sources = new RunSourcePolicy({ roots: config.HS_SOURCE_ROOTS, workspacesDir: config.HS_WORKSPACES_DIR });
  }

  @MessagePattern(listSkills)
  async handle({ team, workspace }: z.output<typeof listSkills.request>) {
    const dir = workspace
      ? await this.sources.check(workspace).catch((error: unknown) => {
          throw error instanceof HeadspaceError && error.field === 'source'
            ? new HeadspaceError(error.code, error.message.replace(/^Run source/, 'Workspace'), { field: 'workspace' })
            : error;
        })
      : undefined;
    return listingOf(await this.registry.catalog(team, dir?.startsWith('/') ? dir : undefined));
  }
}
