import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { effectiveNeeds, HeadspaceError, startWorkflow, type WorkflowStep } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { APP_CONFIG } from '@headspace/platform';
import { createHash, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { RUN_SESSIONS, type RunSessionsPort } from '../../runs/run-ports';
import { RUN_SOURCE_POLICY, type RunSourcePolicy } from '../../runs/run-source.policy';
import { readWorkflowFile } from '../workflow-file';
import { recordWorkflow } from '../workflow-recorder';

type StartWorkflow = z.output<typeof startWorkflow.request>;

/** `wf-<name slug>-<8 hex of the command id>`: no double dash, so a step's ask id names its workflow. */
export function workflowIdFor(name: string, commandId: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 20).replace(/-+$/, '') || 'workflow';
  return `wf-${slug}-${createHash('sha256').update(commandId).digest('hex').slice(0, 8)}`;
}

/** The definition as recorded: every step's needs explicit (a pipeline's implied ones too). */
export function recordedSteps(definition: NonNullable<StartWorkflow['definition']>): WorkflowStep[] {
  return definition.steps.map((step, i) => ({
    id: step.id,
    kind: step.kind,
    prompt: step.prompt,
    needs: effectiveNeeds(definition.mode, definition.steps, i),
    retries: step.retries,
    ...(step.when ? { when: step.when } : {}),
    ...(step.agent ? { agent: step.agent } : {}),
    ...(step.model ? { model: step.model } : {}),
    ...(step.effort ? { effort: step.effort } : {}),
  }));
}

/**
 * `hs.cmd.orchestrator.start-workflow`: an inline definition was checked by its contract (fields,
 * unknown or cyclic needs, conditions and templates naming steps not needed); the workspace is
 * checked here (403/400 naming `workspace`), and a `file` of it read and checked by the same
 * contract, before `workflow.started` is recorded. The workflow process (woken
 * by it) runs the steps.
 */
@Controller()
export class StartWorkflowHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RUN_SESSIONS) private readonly sessions: RunSessionsPort,
    @Inject(RUN_SOURCE_POLICY) private readonly sources: RunSourcePolicy,
  ) {}

  @MessagePattern(startWorkflow)
  async handle(@Payload() input: StartWorkflow, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    const workspace = await this.sources.check(input.workspace).catch((error: unknown) => {
      throw error instanceof HeadspaceError && error.field === 'source'
        ? new HeadspaceError(error.code, error.message.replace(/^Run source/, 'Workspace'), { field: 'workspace', ...(error.details ? { details: error.details } : {}) })
        : error;
    });
    const definition = input.definition ?? (await readWorkflowFile(workspace, input.file!));
    const workflowId = input.workflowId ?? workflowIdFor(definition.name, ctx.commandId ?? randomUUID());
    const { streamVersion } = await recordWorkflow(this.store, input.team, {
      type: 'start-workflow',
      workflowId,
      team: input.team,
      name: definition.name,
      mode: definition.mode,
      workspace,
      concurrency: definition.concurrency ?? this.config.HS_WORKFLOW_CONCURRENCY,
      steps: recordedSteps(definition),
      simulated: this.sessions.simulated,
      now: new Date().toISOString(),
    });
    return { workflowId, streamVersion: streamVersion.toString() };
  }
}
