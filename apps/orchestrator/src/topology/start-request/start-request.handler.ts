import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { startAsk, startRequest, startRun } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { request, type RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { askSignals } from '../../asks/ask-signals';
import { runIdFor } from '../../runs/start-run/start-run.handler';
import { chooseTopology, type Topology } from '../choose-topology';
import { recordRequest } from '../request-recorder';

type StartRequest = z.output<typeof startRequest.request>;

/**
 * `hs.cmd.orchestrator.start-request`: chooses the topology from the prompt's TaskSignals (or takes
 * the operator's), starts the ask or the run under the request's id through their own commands —
 * which check the workspace, agent and model first, so a refused request records nothing — and then
 * records `request.topology-chosen` with the reasons. A retried request (same id) starts nothing
 * twice: the ask and the run are idempotent by id, and the first choice stands.
 */
@Controller()
export class StartRequestHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  @MessagePattern(startRequest)
  async handle(@Payload() input: StartRequest, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    const requestId = input.requestId ?? runIdFor(input.prompt.split('\n')[0], ctx.commandId ?? randomUUID());
    const { signals, reasons } = askSignals(input.prompt);
    const auto = input.topology === 'auto';
    const chosen = auto ? chooseTopology(signals) : { topology: input.topology as Topology, reason: `topology ${input.topology} named by the operator` };
    const pins = { ...(input.agent ? { agent: input.agent } : {}), ...(input.model ? { model: input.model } : {}), ...(input.effort ? { effort: input.effort } : {}) };
    if (chosen.topology === 'ask') {
      await request(this.nc, startAsk, { askId: requestId, team: input.team, prompt: input.prompt, workspace: input.workspace, ...pins }, { commandId: `${requestId}:start`, timeoutMs: 30_000 });
    } else {
      await request(this.nc, startRun, { runId: requestId, team: input.team, goal: input.prompt, source: input.workspace, operator: 'auto', ...pins }, { commandId: `${requestId}:start`, timeoutMs: 30_000 });
    }
    const state = await recordRequest(this.store, {
      type: 'choose-topology',
      requestId,
      team: input.team,
      topology: chosen.topology,
      auto,
      reasons: [...reasons, chosen.reason].slice(0, 30),
      signals,
      startedId: requestId,
      now: new Date().toISOString(),
    });
    const c = state.chosen!;
    return { requestId, topology: c.topology, auto: c.auto, reasons: c.reasons, ...(c.topology === 'ask' ? { askId: c.startedId } : { runId: c.startedId }) };
  }
}
