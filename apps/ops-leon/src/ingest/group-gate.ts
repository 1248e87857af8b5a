import { Inject, Injectable } from '@nestjs/common';
import type { ExceptionReport } from '@headspace/contracts';
import type { CommandContext } from '@headspace/event-store';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import type { Grouping } from '../grouping/fingerprint';
import { GroupLifecycle } from '../groups/group-lifecycle.service';
import { regresses, type Lifecycle } from '../groups/group.decider';
import type { ActiveProject } from '../projects/project.decider';
import { SpikeDetector } from './spike-detector';

interface Cached {
  state: Lifecycle;
  loadedAt: number;
}

const MAX_CACHED = 50_000;

/**
 * What an ingested event does to its group's lifecycle, without touching the group's stream in
 * the steady state: the first event of a fingerprint opens the group (once, whoever races: the
 * command id is the group's, so a second opener replays the first), an event of a resolved group
 * that `regresses` reopens it, and a spike is recorded once per window. The lifecycle is cached
 * for HS_OPS_STATE_CACHE_MS (transitions made on this instance update it at once); concurrent
 * events of an unknown group share one read.
 */
@Injectable()
export class GroupGate {
  private readonly cache = new Map<string, Cached>();
  private readonly loading = new Map<string, Promise<Lifecycle>>();
  private readonly spikes: SpikeDetector;

  constructor(
    private readonly lifecycle: GroupLifecycle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.spikes = new SpikeDetector({
      windowSeconds: config.HS_OPS_SPIKE_WINDOW_SEC,
      baselineWindows: config.HS_OPS_SPIKE_BASELINE_WINDOWS,
      factor: config.HS_OPS_SPIKE_FACTOR,
      minEvents: config.HS_OPS_SPIKE_MIN_EVENTS,
    });
    lifecycle.onChange((groupId, state) => this.remember(groupId, state));
  }

  async afterIngest(
    project: ActiveProject,
    groupId: string,
    grouping: Grouping,
    report: ExceptionReport,
    receivedAt: string,
    counted: boolean,
    ctx: CommandContext,
  ): Promise<void> {
    const trace = { correlationId: ctx.correlationId, causationId: ctx.causationId, traceparent: ctx.traceparent, tracestate: ctx.tracestate };
    let state = await this.stateOf(groupId, () => this.open(project, groupId, grouping, report, receivedAt, trace));
    if (regresses(state, report.release)) {
      state = (await this.lifecycle.run(groupId, { type: 'regress', eventId: report.eventId, release: report.release, now: receivedAt }, { ...trace, commandId: `regress:${groupId}:${report.eventId}` })).state;
    }
    if (!counted || state.status === 'none') return;
    const spike = this.spikes.record(groupId, Date.parse(receivedAt));
    if (spike) {
      const window = Math.floor(Date.parse(receivedAt) / (this.config.HS_OPS_SPIKE_WINDOW_SEC * 1_000));
      const command = { type: 'spike' as const, windowSeconds: this.config.HS_OPS_SPIKE_WINDOW_SEC, count: spike.count, baseline: spike.baseline, factor: this.config.HS_OPS_SPIKE_FACTOR, now: receivedAt };
      await this.lifecycle.run(groupId, command, { ...trace, commandId: `spike:${groupId}:${window}` });
    }
  }

  /** The cached lifecycle; read (once for all concurrent callers) when unknown or stale, opening the group when it has none. */
  private stateOf(groupId: string, open: () => Promise<Lifecycle>): Promise<Lifecycle> {
    const cached = this.cache.get(groupId);
    if (cached && Date.now() - cached.loadedAt < this.config.HS_OPS_STATE_CACHE_MS) return Promise.resolve(cached.state);
    let pending = this.loading.get(groupId);
    if (!pending) {
      pending = (async () => {
        const state = await this.lifecycle.load(groupId);
        const known = state.status === 'none' ? await open() : state;
        this.remember(groupId, known);
        return known;
      })().finally(() => this.loading.delete(groupId));
      this.loading.set(groupId, pending);
    }
    return pending;
  }

  private async open(project: ActiveProject, groupId: string, grouping: Grouping, report: ExceptionReport, receivedAt: string, trace: CommandContext): Promise<Lifecycle> {
    const command = {
      type: 'open' as const,
      groupId,
      project: project.project,
      projectId: project.projectId,
      fingerprint: grouping.fingerprint,
      errorType: report.type,
      title: grouping.title,
      culprit: grouping.culprit,
      level: report.level,
      eventId: report.eventId,
      ...(report.release ? { release: report.release } : {}),
      ...(report.environment ? { environment: report.environment } : {}),
      now: receivedAt,
    };
    return (await this.lifecycle.run(groupId, command, { ...trace, commandId: `open:${groupId}` })).state;
  }

  private remember(groupId: string, state: Lifecycle): void {
    this.cache.delete(groupId);
    this.cache.set(groupId, { state, loadedAt: Date.now() });
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
  }
}
