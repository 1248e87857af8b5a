import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, routeModel, startEvalRun } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { request, type RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { isAbsolute } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { AgentResolver } from '../../agents/agent-resolver.service';
import { askSignals } from '../../asks/ask-signals';
import { resolveAskAgent } from '../../asks/resolve-ask-agent';
import { RUN_SOURCE_POLICY, type RunSourcePolicy } from '../../runs/run-source.policy';
import { runIdFor } from '../../runs/start-run/start-run.handler';
import { LlmBackendProvider } from '../../sessions/ports/llm-backend.provider';
import { loadEvalRun, recordEvalRun } from '../eval-run-recorder';
import { checkFixtures, readEvalSuite } from '../eval-suite';

type StartEvalRun = z.output<typeof startEvalRun.request>;

/**
 * `hs.cmd.orchestrator.start-eval-run`: checks the workspace (the run source policy, 403 naming
 * `workspace`; a directory, since the suite is read from it), reads and validates the suite (400
 * naming the field, `suite.tasks.2.graders.0.path`; a fixture that is not a directory of the workspace), and records `eval.run-started` with the suite
 * as read, so the run is the same whatever the file becomes. The agent, the model (with the cost
 * governor) and the baseline are checked first too, each refusal naming its field. The eval run
 * process (woken by it) runs the tasks.
 */
@Controller()
export class StartEvalRunHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RUN_SOURCE_POLICY) private readonly sources: RunSourcePolicy,
    private readonly llm: LlmBackendProvider,
    private readonly agents: AgentResolver,
  ) {}

  @MessagePattern(startEvalRun)
  async handle(@Payload() input: StartEvalRun, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    const workspace = await this.sources.check(input.workspace).catch((error: unknown) => {
      throw error instanceof HeadspaceError && error.field === 'source'
        ? new HeadspaceError(error.code, error.message.replace(/^Run source/, 'Workspace'), { field: 'workspace', ...(error.details ? { details: error.details } : {}) })
        : error;
    });
    if (!isAbsolute(workspace)) throw new HeadspaceError(ErrorCodes.evalSuiteInvalid, 'An eval workspace is a directory under HS_SOURCE_ROOTS (the suite file is read from it), not a git URL', { field: 'workspace' });
    const suite = await readEvalSuite(workspace, input.suite);
    await checkFixtures(workspace, suite);
    await this.checkConfig(input, workspace, suite.tasks[0]!.prompt);
    const evalRunId = input.evalRunId ?? runIdFor(`eval-${suite.name}`, ctx.commandId ?? randomUUID());
    const config = { ...(input.agent ? { agent: input.agent } : {}), ...(input.model ? { model: input.model } : {}), ...(input.effort ? { effort: input.effort } : {}) };
    const { state, streamVersion } = await recordEvalRun(this.store, input.team, {
      type: 'start-eval-run',
      evalRunId,
      team: input.team,
      workspace,
      suitePath: input.suite,
      suite,
      config,
      ...(input.baseline ? { baseline: input.baseline } : {}),
      simulated: this.llm.simulated,
      now: new Date().toISOString(),
    });
    // A retried start answers with the suite first recorded.
    return { evalRunId, streamVersion: streamVersion.toString(), tasks: (state.started?.suite ?? suite).tasks.length };
  }

  /** What every task's ask would refuse, refused once here: an unknown agent (`agent`) or model (`model`), a baseline that does not exist (`baseline`). */
  private async checkConfig(input: StartEvalRun, workspace: string, prompt: string): Promise<void> {
    await resolveAskAgent(this.nc, this.agents, input.agent, workspace, input.team);
    if (input.model) {
      await request(this.nc, routeModel, { signals: askSignals(prompt).signals, model: input.model }).catch((error: unknown) => {
        throw error instanceof HeadspaceError && error.code === ErrorCodes.costUnknownModel ? new HeadspaceError(error.code, error.message, { field: 'model' }) : error;
      });
    }
    if (input.baseline && !(await loadEvalRun(this.store, input.baseline)).started) {
      throw new HeadspaceError(ErrorCodes.evalRunNotFound, `No eval run "${input.baseline}" to compare with`, { field: 'baseline' });
    }
  }
}
