import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { HeadspaceError, routeModel, startAsk, type AgentSnapshot, type AskRouting } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { request, type RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { createHash, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { AgentResolver } from '../../agents/agent-resolver.service';
import { RUN_SESSIONS, type RunSessionsPort } from '../../runs/run-ports';
import { RUN_SOURCE_POLICY, type RunSourcePolicy } from '../../runs/run-source.policy';
import { runIdFor } from '../../runs/start-run/start-run.handler';
import { askSignals } from '../ask-signals';
import { recordAsk } from '../ask-recorder';
import { resolveAskAgent } from '../resolve-ask-agent';
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
    const routing = await this.route(input, definition);
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

  /** The operator's pins win; a custom agent's model (and effort) is a pin too, recorded as the agent's; otherwise the prompt's signals decide. */
  private async route(input: StartAsk, agent?: AgentSnapshot): Promise<AskRouting> {
    const { signals, reasons } = askSignals(input.prompt);
    const model = input.model ?? (agent && agent.model !== 'inherit' ? agent.model : undefined);
    const effort = input.effort ?? agent?.effort;
    const pinnedBy = input.model || input.effort ? 'operator' : model || effort ? 'agent' : undefined;
    const decision = await request(this.nc, routeModel, { signals, ...(model ? { model } : {}), ...(effort ? { effort } : {}) });
    return {
      model: decision.model,
      tier: decision.tier,
      effort: decision.effort,
      thinkingBudgetTokens: decision.thinkingBudgetTokens,
      reasons: [...reasons, ...(pinnedBy === 'agent' ? [`agent ${agent!.name}`] : []), ...decision.reasons].slice(0, 30),
      signals,
      pinned: pinnedBy !== undefined,
      ...(pinnedBy ? { pinnedBy } : {}),
    };
  }
}
