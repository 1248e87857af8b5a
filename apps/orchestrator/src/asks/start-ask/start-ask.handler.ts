import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { HeadspaceError, startAsk } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { createHash, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { AgentResolver } from '../../agents/agent-resolver.service';
import { RUN_SESSIONS, type RunSessionsPort } from '../../runs/run-ports';
import { RUN_SOURCE_POLICY, type RunSourcePolicy } from '../../runs/run-source.policy';
import { runIdFor } from '../../runs/start-run/start-run.handler';
import { recordAsk } from '../ask-recorder';
import { resolveAskAgent } from '../resolve-ask-agent';
import { routeRequest } from '../route-request';
import { SkillRegistry } from '../../skill-registry/skill-registry.service';

type StartAsk = z.output<typeof startAsk.request>;

/**
 * `hs.cmd.orchestrator.start-ask`: checks the workspace (the run source policy, 403 naming
 * `workspace`) and the agent, has the cost governor route the prompt's signals unless the operator
 * pinned model or effort, and records `ask.started` with that decision. The ask process (woken by
 * it) prepares the checkout and runs the session.
 */
@Controller()
export class StartAskHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RUN_SESSIONS) private readonly sessions: RunSessionsPort,
    @Inject(RUN_SOURCE_POLICY) private readonly sources: RunSourcePolicy,
    private readonly agents: AgentResolver,
    private readonly skills: SkillRegistry,
  ) {}

  @MessagePattern(startAsk)
  async handle(@Payload() input: StartAsk, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    // Nothing is written before the workspace and the agent pass.
    const workspace = await this.sources.check(input.workspace).catch((error: unknown) => {
      throw error instanceof HeadspaceError && error.field === 'source'
        ? new HeadspaceError(error.code, error.message.replace(/^Run source/, 'Workspace'), { field: 'workspace', ...(error.details ? { details: error.details } : {}) })
        : error;
    });
    const { persona, definition } = await resolveAskAgent(this.nc, this.agents, input.agent, workspace, input.team);
    // A slash command must name one of the ask's skills (400 naming `prompt`).
    await this.skills.checkSlashCommand(input.team, workspace, input.prompt);
    const routing = await routeRequest(this.nc, { text: input.prompt, model: input.model, effort: input.effort }, definition);
    const askId = input.askId ?? runIdFor(input.prompt.split('\n')[0], ctx.commandId ?? randomUUID());
    const { state, streamVersion } = await recordAsk(this.store, input.team, {
      type: 'start-ask',
      askId,
      team: input.team,
      prompt: input.prompt,
      promptDigest: createHash('sha256').update(input.prompt).digest('hex'),
      persona,
      ...(input.agent ? { agent: input.agent } : {}),
      ...(definition ? { agentDefinition: definition } : {}),
      workspace,
      routing,
      simulated: this.sessions.simulated,
      now: new Date().toISOString(),
    });
    // A retried start answers with the decision first recorded.
    return { askId, streamVersion: streamVersion.toString(), routing: state.started?.routing ?? routing };
  }
}
