import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, getRun } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { AgentSessionRow } from '../../sessions/agent-session.entity';
import { RunRecorder } from '../run-recorder';
import { runView } from '../run-view';

/**
 * `hs.qry.orchestrator.get-run`: folds the run's stream (always current; a run has hundreds of
 * events at most) and adds each running session's last activity from the agent-sessions projection.
 */
@Controller()
export class GetRunHandler {
  constructor(
    private readonly store: EventStore,
    private readonly reads: ReadModel,
  ) {}

  @MessagePattern(getRun)
  async handle({ runId }: z.output<typeof getRun.request>) {
    const state = (await RunRecorder.load(this.store, runId)).state;
    if (!state.started) throw new HeadspaceError(ErrorCodes.runNotFound, `No run "${runId}"`, { field: 'runId' });
    const running = await this.reads.em().find(AgentSessionRow, { runId, status: 'running' }, { fields: ['sessionId', 'lastActivity'] });
    return runView(state, Object.fromEntries(running.map((s) => [s.sessionId, s.lastActivity ?? undefined])));
  }
}
