import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { createOpsProject, OPS_PROJECT_REGISTRY_STREAM, opsProjectStreamId } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { registryDecider } from '../project.decider';

/**
 * `create-project`: takes its turn on the registry (the name must be new, the numeric DSN id is the
 * next one) and starts the project's own stream, in one transaction.
 */
@Controller()
export class CreateProjectHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(createOpsProject)
  async handle(@Payload() r: z.output<typeof createOpsProject.request>, @Ctx() ctx: RequestContext) {
    const command = {
      type: 'create' as const,
      project: r.project,
      displayName: r.displayName ?? r.project,
      repository: r.repository,
      trusted: r.trusted,
      environments: r.environments,
      ...(r.team ? { team: r.team } : {}),
      testCommand: r.testCommand,
      verifyWindowSeconds: r.verifyWindowSeconds,
      createdBy: r.actor,
      now: new Date().toISOString(),
    };
    const outcome = await handleCommand(this.store, registryDecider, OPS_PROJECT_REGISTRY_STREAM, command, ctx, {
      turn: true,
      route: (event) => (event.type === 'project.created' ? { streamId: opsProjectStreamId(r.project), expected: 'no-stream' } : undefined),
    });
    const registered = outcome.events.find((e) => e.type === 'project.registered');
    return { project: r.project, projectId: registered?.type === 'project.registered' ? registered.data.projectId : outcome.state.ids[r.project], streamVersion: outcome.streamVersion.toString() };
  }
}
