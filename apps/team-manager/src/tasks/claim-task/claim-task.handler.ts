import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, claimTask, taskStreamId } from '@headspace/contracts';
import { COMMAND_RETRY, ConcurrencyError, contextMetadata, EventStore, foldEvents, withRetry, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { meter } from '@headspace/telemetry';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { taskDecider, type TaskEvent } from '../task.decider';
import { loadTask, taskNotFound, TASK_SETTINGS, type TaskSettings, type LoadedTask } from '../task-streams';

type ClaimRequest = z.output<typeof claimTask.request>;
type ClaimResponse = z.input<typeof claimTask.response>;

const claims = meter.createCounter('headspace.tasks.claims', { description: 'Task claims answered, by outcome (won or the refusal code)' });

/**
 * Refusals that do not depend on who claims (unlike TASK.BLOCKED's list, they are the same for all)
 * — except TASK.ALREADY_CLAIMED for the owner itself, whose claim renews its lease instead.
 */
const SHARED_REFUSALS = new Set<string>([ErrorCodes.taskAlreadyClaimed, ErrorCodes.taskAlreadyCompleted, ErrorCodes.taskEscalated]);

interface PendingClaim {
  request: ClaimRequest;
  ctx: RequestContext;
  commandId: string;
  /** performance.now() when the request arrived. */
  arrivedAt: number;
  resolve(response: ClaimResponse): void;
  reject(error: unknown): void;
}

/**
 * `claim-task`: the atomic claim. Decided against the task's own stream and appended at exactly the
 * version it was decided on, so of N simultaneous claimers across all replicas one compare-and-set
 * succeeds and the others get TASK.ALREADY_CLAIMED (the winner claiming again keeps the task: its
 * claim renews the lease, see the task decider). Dependencies are checked on their own streams
 * (read-your-writes: a dependency completed a moment ago unblocks at once).
 *
 * Claims of one task arriving at one replica together are decided in turn against one read of the
 * stream (a per-stream queue): the first appends, the rest are decided against the state that append
 * produced — the version this replica itself just wrote, so nothing stale — instead of each reading,
 * losing the compare-and-set, backing off and reading again. Correctness across replicas still rests
 * on the compare-and-set alone: a lost race reloads the stream and decides again (COMMAND_RETRY bounds).
 */
@Controller()
export class ClaimTaskHandler {
  private readonly queues = new Map<string, PendingClaim[]>();

  constructor(
    private readonly store: EventStore,
    @Inject(TASK_SETTINGS) private readonly settings: TaskSettings,
  ) {}

  @MessagePattern(claimTask)
  handle(@Payload() request: ClaimRequest, @Ctx() ctx: RequestContext): Promise<ClaimResponse> {
    const commandId = ctx.commandId ?? randomUUID();
    const streamId = taskStreamId(request.team, request.taskId);
    return new Promise((resolve, reject) => {
      const pending: PendingClaim = { request, ctx, commandId, arrivedAt: performance.now(), resolve, reject };
      const queue = this.queues.get(streamId);
      if (queue) return void queue.push(pending);
      this.queues.set(streamId, [pending]);
      void this.drain(streamId);
    });
  }

  private async drain(streamId: string): Promise<void> {
    const queue = this.queues.get(streamId)!;
    /**
     * The stream state in hand and the moment it is known to be current: when its read was issued, or
     * when our own append (at the exact version) was issued. A claim may be decided on it only if it
     * arrived before that moment — its answer is then the one it would have got at that point — so a
     * claim arriving later reads afresh (an expiry or completion appended meanwhile is never missed).
     */
    let task: (LoadedTask & { asOf: number }) | undefined;
    /**
     * A refusal that holds for every claimer at this version (already claimed / completed /
     * escalated): the losers of a race share it instead of each building the same error.
     */
    let refusal: { version: bigint; error: HeadspaceError } | undefined;
    try {
      while (queue.length > 0) {
        const claim = queue[0];
        const attempt = async () => {
          if (!task || claim.arrivedAt > task.asOf) {
            const asOf = performance.now();
            task = { ...(await loadTask(this.store, claim.request.team, claim.request.taskId)), asOf };
          }
          if (refusal && refusal.version === task.version && claim.request.expectedVersion === undefined && !this.isPrior(claim, task) && !this.isOwner(claim, task)) {
            throw refusal.error;
          }
          try {
            return await this.decide(claim, task);
          } catch (error) {
            if (error instanceof ConcurrencyError) task = undefined;
            throw error;
          }
        };
        try {
          // An explicit expected version is the caller's own optimistic check: no retry on a mismatch.
          claim.resolve(claim.request.expectedVersion !== undefined ? await attempt() : await withRetry(attempt, COMMAND_RETRY));
          claims.add(1, { outcome: 'won' });
        } catch (error) {
          claim.reject(error);
          claims.add(1, { outcome: error instanceof HeadspaceError ? error.code : 'INTERNAL.UNEXPECTED' });
          if (error instanceof HeadspaceError && SHARED_REFUSALS.has(error.code) && task) refusal = { version: task.version, error };
          else if (!(error instanceof HeadspaceError && error.code.startsWith('TASK.'))) task = undefined;
        }
        queue.shift();
      }
    } finally {
      this.queues.delete(streamId);
    }
  }

  private isPrior(claim: PendingClaim, task: LoadedTask): boolean {
    return task.events.some((e) => e.metadata.commandId === claim.commandId);
  }

  private isOwner(claim: PendingClaim, task: LoadedTask): boolean {
    return task.state.exists && task.state.status === 'claimed' && task.state.owner === claim.request.owner;
  }

  /** Decides one claim against `task` and appends; on success `task` becomes the state after it. */
  private async decide(claim: PendingClaim, task: LoadedTask & { asOf: number }): Promise<ClaimResponse> {
    const { request, ctx, commandId } = claim;
    // A claim appends task.claimed, or task.heartbeat when its owner claims again (a lease renewal).
    const prior = task.events.find((e) => (e.type === 'task.claimed' || e.type === 'task.heartbeat') && e.metadata.commandId === commandId);
    if (prior && (prior.type === 'task.claimed' || prior.type === 'task.heartbeat')) {
      const then = foldEvents(taskDecider, task.events.filter((e) => e.streamVersion <= prior.streamVersion));
      const attempt = then.exists ? then.attempts : 0;
      return { taskId: request.taskId, owner: prior.data.owner, attempt, leaseExpiresAt: prior.data.leaseExpiresAt, streamVersion: prior.streamVersion.toString() };
    }
    if (!task.state.exists) throw taskNotFound(request.team, request.taskId);
    // The caller's optimistic check comes first: the stream moved since it looked.
    if (request.expectedVersion !== undefined && BigInt(request.expectedVersion) !== task.version) {
      throw new ConcurrencyError(task.streamId, BigInt(request.expectedVersion), task.version);
    }
    const incompleteDependencies: string[] = [];
    if (task.state.status === 'pending') {
      for (const dep of task.state.dependsOn) {
        const dependency = await loadTask(this.store, request.team, dep);
        if (!dependency.state.exists || dependency.state.status !== 'completed') incompleteDependencies.push(dep);
      }
    }
    const events = taskDecider.decide(
      {
        type: 'claim',
        owner: request.owner,
        ...(request.activeForm === undefined ? {} : { activeForm: request.activeForm }),
        leaseMs: request.leaseMs ?? this.settings.TASK_LEASE_MS,
        now: new Date().toISOString(),
        incompleteDependencies,
      },
      task.state,
    );
    const metadata = contextMetadata(ctx, commandId);
    const appendIssuedAt = performance.now();
    const result = await this.store.append(task.streamId, events, { expected: task.version, commandId, metadata });
    const claimed = events[0];
    if (claimed.type !== 'task.claimed' && claimed.type !== 'task.heartbeat') throw new Error('claim decided something else');
    if (result.replayed) {
      // This command's own earlier attempt got in first: answer from the log, not from memory.
      throw new ConcurrencyError(task.streamId, task.version, result.nextExpectedVersion);
    }
    // The state after our own append (read-your-writes without another round trip).
    task.events.push({ ...claimed, metadata: { ...metadata, commandId }, streamVersion: result.nextExpectedVersion } as RecordedEvent & TaskEvent);
    task.state = taskDecider.evolve(task.state, claimed);
    task.version = result.nextExpectedVersion;
    task.asOf = appendIssuedAt;
    if (!task.state.exists) throw new Error('claim left no task');
    return {
      taskId: request.taskId,
      owner: claimed.data.owner,
      attempt: task.state.attempts,
      leaseExpiresAt: claimed.data.leaseExpiresAt,
      streamVersion: result.nextExpectedVersion.toString(),
    };
  }
}
