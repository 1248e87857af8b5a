import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, answerRun } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { serveRequests, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { RunRecorder } from '../run-recorder';
import { RunReconciler } from '../run-reconciler';

/** `hs.cmd.orchestrator.answer-run`: the operator answers Robbo, accepts the spec, approves (or edits) tasks, or answers an escalation. */
@Injectable()
export class AnswerRunHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly reconciler: RunReconciler,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, answerRun, async (body) => {
      const run = await RunRecorder.load(this.store, body.runId);
      if (!run.state.started) throw new HeadspaceError(ErrorCodes.runNotFound, `No run "${body.runId}"`, { field: 'runId' });
      const now = new Date().toISOString();
      switch (body.kind) {
        case 'questions':
          await run.record({ type: 'answer-questions', runId: body.runId, answer: body.answer, by: body.by, now });
          break;
        case 'spec':
          await run.record({ type: 'accept-spec', runId: body.runId, by: body.by, now });
          break;
        case 'tasks':
          await run.record({ type: 'approve-tasks', runId: body.runId, ...(body.tasks ? { tasks: body.tasks } : {}), by: body.by, now });
          break;
        case 'escalation':
          await run.record({ type: 'answer-escalation', runId: body.runId, escalationId: body.escalationId, answer: body.answer, ...(body.note ? { note: body.note } : {}), by: body.by, now });
          break;
      }
      this.reconciler.trigger(body.runId);
      return { runId: body.runId, streamVersion: run.streamVersion.toString() };
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }
}
