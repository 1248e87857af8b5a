import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { opsProjectStreamId, updateOpsProject } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { ProjectDirectory } from '../project-directory';
import { mustExist, projectDecider } from '../project.decider';

/** `update-project`: display name, repository, trusted flag, environments, team, test command, verify window; the ones not given stay. */
@Controller()
export class UpdateProjectHandler {
  constructor(
    private readonly store: EventStore,
    private readonly directory: ProjectDirectory,
  ) {}

  @MessagePattern(updateOpsProject)
  async handle(@Payload() r: z.output<typeof updateOpsProject.request>, @Ctx() ctx: RequestContext) {
    const { project, actor, ...settings } = r;
    const now = new Date().toISOString();
    const outcome = await handleCommand(this.store, projectDecider, opsProjectStreamId(project), { type: 'update', ...settings, updatedBy: actor, now }, ctx, {
      before: ({ state }) => void mustExist(state, project),
    });
    this.directory.forget(project);
    const p = mustExist(outcome.state, project);
    const history = await this.store.readStream(opsProjectStreamId(project));
    return {
      project: {
        project: p.project,
        projectId: p.projectId,
        displayName: p.displayName,
        repository: p.repository,
        trusted: p.trusted,
        environments: p.environments,
        team: p.team ?? null,
        testCommand: p.testCommand,
        verifyWindowSeconds: p.verifyWindowSeconds,
        createdAt: history[0].recordedAt.toISOString(),
        updatedAt: (outcome.events.at(-1)?.data as { at?: string } | undefined)?.at ?? now,
      },
      streamVersion: outcome.streamVersion.toString(),
    };
  }
}
