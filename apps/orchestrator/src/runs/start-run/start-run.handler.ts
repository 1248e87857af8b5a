import { Inject, Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { listPersonas, routeModel, runLimitsSchema, startRun, ValidationError, type AgentSnapshot, type RunRoster } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { request, type RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import { beginStoredSpan, inContext } from '@headspace/telemetry';
import type { NatsConnection } from '@nats-io/nats-core';
import { createHash, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { AgentResolver } from '../../agents/agent-resolver.service';
import { RUN_SESSIONS, type RunSessionsPort } from '../run-ports';
import { RunRecorder } from '../run-recorder';
import { RUN_SOURCE_POLICY, type RunSourcePolicy } from '../run-source.policy';
import { importProjectManifest, readProjectManifest } from './project-manifest';

/** The run's title: the goal's first heading or line, without markdown. */
export function titleOf(goal: string): string {
  const line = goal.split('\n').map((l) => l.trim()).find(Boolean) ?? 'Run';
  return line.replace(/^#+\s*/, '').replace(/^goal:\s*/i, '').slice(0, 200) || 'Run';
}

/** A stable run id from the command id, so a retried start starts nothing new. */
export function runIdFor(title: string, commandId: string): string {
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'run';
  return `${slug}-${createHash('sha256').update(commandId).digest('hex').slice(0, 8)}`;
}

/**
 * `hs.cmd.orchestrator.start-run`: records the run with the roster it will assign from; the run
 * process (woken by `run.started`) takes it from there.
 */
@Controller()
export class StartRunHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RUN_SESSIONS) private readonly sessions: RunSessionsPort,
    @Inject(RUN_SOURCE_POLICY) private readonly sources: RunSourcePolicy,
    private readonly agents: AgentResolver,
  ) {}

  @MessagePattern(startRun)
  async handle(@Payload() input: z.output<typeof startRun.request>, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    // Before anything is written: a source outside the allowed roots is refused, naming `source`.
    const source = await this.sources.check(input.source);
    // … and so is an agent the project and user do not define (400 naming `agent`), or a pinned model the price table does not know.
    const agent = input.agent ? await this.agent(input.agent, source, input.team) : undefined;
    if (input.model || input.effort) await request(this.nc, routeModel, { ...(input.model ? { model: input.model } : {}), ...(input.effort ? { effort: input.effort } : {}) });
    // Last of the checks, so a refused start imports nothing: the project's .claude/team.yaml becomes the team's manifest (400 naming the field when it is bad).
    const manifestYaml = await readProjectManifest(source);
    const manifest = manifestYaml === undefined ? undefined : await importProjectManifest(this.nc, input.team, manifestYaml);
    const title = titleOf(input.goal);
    const runId = input.runId ?? runIdFor(title, ctx.commandId ?? randomUUID());
    const run = await RunRecorder.load(this.store, runId);
    // The run's trace begins here: run.started stores the run span's context, its work parents on it (ADR 0028).
    const runSpan = run.spans.run ?? beginStoredSpan(`run ${runId}`, { attributes: { 'headspace.run_id': runId, 'headspace.team': input.team } });
    await inContext(runSpan, async () => run.record({
      type: 'start-run',
      runId,
      team: input.team,
      goal: input.goal,
      title,
      source,
      mode: input.mode,
      operator: input.operator,
      limits: runLimitsSchema.parse(input.limits),
      roster: await this.roster(),
      ...(input.tasks ? { tasks: input.tasks } : {}),
      ...(input.fix ? { fix: input.fix } : {}),
      ...(input.runtime ? { runtime: input.runtime } : {}),
      ...(input.model ? { model: input.model } : {}),
      ...(input.effort ? { effort: input.effort } : {}),
      ...(agent ? { agent } : {}),
      ...(manifest ? { manifest } : {}),
      simulated: this.sessions.simulated,
      now: new Date().toISOString(),
    }));
    return { runId, streamVersion: run.streamVersion.toString() };
  }

  private async agent(name: string, source: string, team: string): Promise<AgentSnapshot> {
    const { agent, known } = await this.agents.lookup(name, source, team);
    if (!agent) throw new ValidationError('run', [{ field: 'agent', message: `no agent "${name}" in ${source}/.headspace/agents, the user's agents or the shipped templates (agents: ${known.join(', ') || 'none'})` }]);
    return agent;
  }

  private async roster(): Promise<RunRoster> {
    const { personas, pools } = await request(this.nc, listPersonas, {});
    return {
      pools: Object.fromEntries(pools.map((p) => [p.pool, p.personas])),
      names: Object.fromEntries(personas.map((p) => [p.personaId, p.name])),
    };
  }
}
