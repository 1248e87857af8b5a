import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { HeadspaceError, processSecretRedactor, startLoop, ValidationError } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { AgentResolver } from '../../agents/agent-resolver.service';
import { resolveAskAgent } from '../../asks/resolve-ask-agent';
import { routeRequest } from '../../asks/route-request';
import { RUN_SESSIONS, type RunSessionsPort } from '../../runs/run-ports';
import { RUN_SOURCE_POLICY, type RunSourcePolicy } from '../../runs/run-source.policy';
import { runIdFor } from '../../runs/start-run/start-run.handler';
import { recordLoop } from '../loop-recorder';

type StartLoop = z.output<typeof startLoop.request>;

/**
 * `hs.cmd.orchestrator.start-loop`: checks the workspace (the run source policy, 403 naming
 * `workspace`) and the agent, has the cost governor route the task as it routes an ask (every
 * iteration's session runs on that decision, under the same budgets), and records `loop.started`
 * with the limits. The loop process (woken by it) runs the iterations.
 */
@Controller()
export class StartLoopHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RUN_SESSIONS) private readonly sessions: RunSessionsPort,
    @Inject(RUN_SOURCE_POLICY) private readonly sources: RunSourcePolicy,
    private readonly agents: AgentResolver,
  ) {}

  @MessagePattern(startLoop)
  async handle(@Payload() input: StartLoop, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    // Nothing is written before the check, the workspace and the agent pass. The check is recorded
    // as given (the orchestrator runs it), so one holding a secret is refused rather than recorded.
    if (input.check && processSecretRedactor().text(input.check) !== input.check)
      throw new ValidationError('loop', [{ field: 'check', message: 'holds a secret; give the check its secrets through the environment of the team’s sandbox instead' }]);
    const workspace = await this.sources.check(input.workspace).catch((error: unknown) => {
      throw error instanceof HeadspaceError && error.field === 'source'
        ? new HeadspaceError(error.code, error.message.replace(/^Run source/, 'Workspace'), { field: 'workspace', ...(error.details ? { details: error.details } : {}) })
        : error;
    });
    const { persona, definition } = await resolveAskAgent(this.nc, this.agents, input.agent, workspace);
    const routing = await routeRequest(this.nc, { text: input.task, model: input.model, effort: input.effort }, definition);
    const loopId = input.loopId ?? runIdFor(input.task.split('\n')[0], ctx.commandId ?? randomUUID());
    const { state, streamVersion } = await recordLoop(this.store, input.team, {
      type: 'start-loop',
      loopId,
      team: input.team,
      task: input.task,
      persona,
      ...(definition ? { agentDefinition: definition } : {}),
      workspace,
      ...(input.check ? { check: input.check } : {}),
      limits: { maxIterations: input.maxIterations, maxDiffLines: input.maxDiffLines, sameErrorLimit: input.sameErrorLimit, stopFile: input.stopFile },
      routing,
      simulated: this.sessions.simulated,
      now: new Date().toISOString(),
    });
    // A retried start answers with the decision first recorded.
    return { loopId, streamVersion: streamVersion.toString(), routing: state.started?.routing ?? routing };
  }
}
