import { Inject, Injectable, Logger } from '@nestjs/common';
import { exceptionGroupStreamId, HeadspaceError, httpStatusForCode, opsProjectStreamId, requestApproval, startRun, type ExceptionReport } from '@headspace/contracts';
import { EventStore, foldEvents } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION, ReadModel } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { GroupLifecycle } from '../groups/group-lifecycle.service';
import type { GroupCommand } from '../groups/group.decider';
import { GroupRow, SampleRow } from '../groups/group.entity';
import { ModelPort } from '../model/model-port';
import { opsMetrics } from '../ops-metrics';
import { mustExist, projectDecider, type ActiveProject, type ProjectEvent } from '../projects/project.decider';
import { fixRunRequest } from './fix-run-request';
import type { RemediationConfig } from './remediation.config';
import {
  afterRun,
  escalationQuestion,
  fixRunId,
  parseJudgement,
  planAfterJudgement,
  planAfterTriage,
  verification,
  type JudgingLevel,
  type Plan,
  type ProjectFacts,
  type TriageFacts,
} from './remediation.policy';
import { RemediationTable, type Columns, type Remediation, type Step } from './remediation-table';

export const LEON = 'leon';
const CALL_TIMEOUT_MS = 30_000;

export interface Next {
  step: Step | null;
  stepId?: string;
  input?: Record<string, unknown>;
  dueAt?: Date;
  columns?: Columns;
}

/** A refusal of another service (4xx): asking again cannot help. */
export const isRefusal = (error: unknown) => {
  if (!(error instanceof HeadspaceError)) return false;
  const status = httpStatusForCode(error.code);
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
};

/** Triage's facts with what a group never triaged (an operator's fix of a group triage skipped) lacks. */
const triageOf = (r: Remediation): TriageFacts => ({
  severity: r.triage.severity ?? 'error',
  domain: r.triage.domain ?? 'backend',
  persona: r.triage.persona ?? 'con',
  autoFixable: r.triage.autoFixable ?? false,
  complex: r.triage.complex ?? false,
  hypothesis: r.triage.hypothesis ?? '',
  approach: r.triage.approach ?? '',
});

/**
 * The effects of each remediation step (ADR 0024): lifecycle commands, the fix approval, the fix
 * run, the ladder's model calls. Every command id derives from the step's id, so a step repeated
 * after a crash (or a lost reply) appends, asks and starts nothing twice.
 */
@Injectable()
export class RemediationSteps {
  private readonly logger = new Logger('Remediation');

  constructor(
    private readonly lifecycle: GroupLifecycle,
    private readonly table: RemediationTable,
    private readonly store: EventStore,
    private readonly reads: ReadModel,
    private readonly model: ModelPort,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: RemediationConfig,
  ) {}

  run(r: Remediation & { stepId: string }): Promise<Next> {
    switch (r.step) {
      case 'triage':
        return this.afterTriage(r);
      case 'ask-gavin':
      case 'ask-robbo':
        return this.askLadder(r, r.step === 'ask-gavin' ? 'gavin' : 'robbo');
      case 'start-fix':
        return this.startFix(r);
      case 'run-ended':
        return this.runEnded(r);
      case 'verify':
        return this.verify(r);
      default:
        return Promise.resolve({ step: null });
    }
  }

  private async afterTriage(r: Remediation & { stepId: string }): Promise<Next> {
    const project = await this.project(r.project);
    return this.enact(r, planAfterTriage(triageOf(r), facts(project), this.config.HS_OPS_TRUSTED_AUTOFIX_MAX_SEVERITY), project);
  }

  /** Gavin (light model) or Robbo (deep): fix it as a task, or up the ladder. The answer is kept before it is acted on. */
  private async askLadder(r: Remediation & { stepId: string }, level: JudgingLevel): Promise<Next> {
    const project = await this.project(r.project);
    const triage = triageOf(r);
    const trustedMax = this.config.HS_OPS_TRUSTED_AUTOFIX_MAX_SEVERITY;
    if (!project.team) return this.enact(r, planAfterJudgement(level, { unanswered: 'the project has no team' }, triage, facts(project), trustedMax), project);
    let answer = r.stepInput.answer as Parameters<typeof planAfterJudgement>[1] | undefined;
    if (!answer) {
      const group = await this.identity(r.groupId);
      const question = escalationQuestion(level, { ...group, project: r.project }, triage, String(r.stepInput.why ?? ''));
      const reply = await this.model.ask({
        persona: level,
        purpose: `escalation-${level}`,
        groupId: r.groupId,
        project: r.project,
        team: project.team,
        tier: level === 'gavin' ? 'light' : 'deep',
        ...question,
        maxTokens: 800,
        callId: `${r.groupId}:${r.stepId}:escalation-${level}`,
      });
      const judgement = reply.status === 'answered' ? parseJudgement(reply.text) : null;
      answer = judgement ? { judgement } : { unanswered: reply.status === 'answered' ? 'not the JSON asked for' : reply.reason };
      await this.table.keepInput(r.groupId, r.stepId, { ...r.stepInput, answer });
    }
    return this.enact(r, planAfterJudgement(level, answer, triage, facts(project), trustedMax), project);
  }

  /** A plan's effects, and the step after it. */
  private async enact(r: Remediation & { stepId: string }, plan: Plan, project: ActiveProject): Promise<Next> {
    const id = r.stepId;
    switch (plan.kind) {
      case 'nothing':
        return { step: null };
      case 'escalate':
        await this.move(r.groupId, { type: 'escalate', level: plan.level, reason: plan.reason }, `${id}:escalate`);
        return plan.level === 'operator' ? { step: null } : { step: `ask-${plan.level}`, stepId: `${id}:${plan.level}`, input: { why: plan.reason } };
      case 'fix-trusted': {
        const proposed = await this.move(r.groupId, { type: 'propose-fix', approach: plan.approach, approvalSkipped: 'trusted' }, `${id}:propose`);
        if (!proposed.replayed) opsMetrics.fixProposed(r.project, 'trusted');
        return { step: 'start-fix', stepId: `${id}:start`, input: { approach: plan.approach }, columns: { run_id: null } };
      }
      case 'ask-approval': {
        let approvalId: string;
        try {
          approvalId = await this.requestApproval(r, plan.approach, project);
        } catch (error) {
          if (!isRefusal(error)) throw error;
          return this.enact(r, { kind: 'escalate', level: 'operator', reason: `no fix approval could be asked: ${(error as Error).message}` }, project);
        }
        const proposed = await this.move(r.groupId, { type: 'propose-fix', approvalId, approach: plan.approach }, `${id}:propose`);
        if (!proposed.replayed) opsMetrics.fixProposed(r.project, 'approval');
        return { step: null, input: { approach: plan.approach }, columns: { approval_id: approvalId, approval_decision: null } };
      }
    }
  }

  private async requestApproval(r: Remediation & { stepId: string }, approach: string, project: ActiveProject): Promise<string> {
    const triage = triageOf(r);
    const group = await this.identity(r.groupId);
    const title = group.type ? `${group.type}: ${group.title}` : r.groupId;
    const reply = await request(
      this.nc,
      requestApproval,
      {
        team: project.team!,
        kind: 'fix-approval',
        requester: LEON,
        summary: `Fix ${triage.severity} ${title}`.slice(0, 500),
        payload: { groupId: r.groupId, project: r.project, severity: triage.severity, domain: triage.domain, persona: triage.persona, hypothesis: triage.hypothesis.slice(0, 4_000), approach: approach.slice(0, 4_000) },
        timeoutMs: this.config.HS_OPS_FIX_APPROVAL_TIMEOUT_MS,
        defaultAnswer: 'deny',
      },
      { commandId: `remediation:${r.stepId}:approval`, timeoutMs: CALL_TIMEOUT_MS },
    );
    return reply.approvalId;
  }

  /** The orchestrator's fix run (`fix-<group>-<n>`, its id kept before it is asked for), then FIX_IN_PROGRESS. */
  private async startFix(r: Remediation & { stepId: string }): Promise<Next> {
    const project = await this.project(r.project);
    if (!project.team) return this.enact(r, { kind: 'escalate', level: 'operator', reason: `project ${r.project} has no team to fix it` }, project);
    let runId = r.runId;
    if (!runId) {
      runId = fixRunId(r.groupId, r.runSeq + 1);
      await this.table.set(r.groupId, { run_seq: r.runSeq + 1, run_id: runId, regression_test: null, after_fix_ok: null });
    }
    const group = await this.reads.one(GroupRow, { groupId: r.groupId });
    if (!group) throw new Error(`group ${r.groupId} is not in the read model yet`);
    const samples = await this.reads.rows(SampleRow, { groupId: r.groupId }, { orderBy: [{ seq: 'desc' }], limit: 3 });
    const body = fixRunRequest({
      runId,
      groupId: r.groupId,
      project: { project: project.project, team: project.team, repository: project.repository, testCommand: project.testCommand },
      group: { type: group.type, title: group.title, culprit: group.culprit, count: String(group.count), releases: group.releases },
      triage: triageOf(r),
      approach: String(r.stepInput.approach ?? '') || triageOf(r).approach,
      samples: samples.map((s) => s.report as ExceptionReport),
    });
    try {
      await request(this.nc, startRun, body, { commandId: `remediation:start-run:${runId}`, timeoutMs: CALL_TIMEOUT_MS });
    } catch (error) {
      if (!isRefusal(error)) throw error;
      return this.enact(r, { kind: 'escalate', level: 'operator', reason: `the fix run could not start: ${(error as Error).message}` }, project);
    }
    const started = await this.move(r.groupId, { type: 'start-fix', runId, team: project.team }, `${runId}:start-fix`);
    if (!started.replayed) opsMetrics.fixStarted(r.project);
    return { step: null };
  }

  /** Done → FIX_COMMITTED at the run's head (the fix's release), verified after the project's window; failed → Gavin. */
  private async runEnded(r: Remediation & { stepId: string }): Promise<Next> {
    const ended = r.stepInput as Parameters<typeof afterRun>[0];
    const outcome = afterRun(ended);
    if (outcome.kind === 'escalate') return this.enact(r, outcome, await this.project(r.project));
    const project = await this.project(r.project);
    const done = await this.move(
      r.groupId,
      { type: 'commit-fix', commit: outcome.commit, release: outcome.commit, runId: ended.runId, ...(r.regressionTest ? { regressionTest: r.regressionTest } : {}) },
      `${ended.runId}:commit`,
    );
    const committed = done.events.find((e) => e.type === 'group.fix-committed');
    const committedAt = new Date(committed?.data.at ?? Date.now());
    if (!done.replayed) opsMetrics.fixCommitted(r.project);
    const window = project.verifyWindowSeconds;
    return {
      step: 'verify',
      stepId: `${ended.runId}:verify`,
      dueAt: new Date(committedAt.getTime() + window * 1_000),
      columns: { fix_release: outcome.commit, committed_at: committedAt, window_seconds: window },
    };
  }

  private async verify(r: Remediation & { stepId: string }): Promise<Next> {
    const group = await this.reads.one(GroupRow, { groupId: r.groupId });
    const committedAtMs = r.committedAt?.getTime() ?? Date.now();
    const seen = Boolean(group && r.fixRelease && group.releases.includes(r.fixRelease) && group.lastSeen.getTime() >= committedAtMs);
    const verdict = verification({ afterFixOk: r.afterFixOk, fixReleaseSeen: seen, committedAtMs, windowSeconds: r.windowSeconds ?? 0, nowMs: Date.now() });
    switch (verdict) {
      case 'unverified':
        this.logger.warn(`group ${r.groupId}: the fix's after-fix check did not pass, so it stays FIX_COMMITTED`);
        return { step: null };
      case 'wait':
        return { step: 'verify', dueAt: new Date(committedAtMs + (r.windowSeconds ?? 0) * 1_000), columns: {} };
      case 'did-not-hold':
        return this.enact(r, { kind: 'escalate', level: 'gavin', reason: `the fix did not hold: an event of its release ${r.fixRelease} arrived within ${r.windowSeconds}s` }, await this.project(r.project));
      case 'verify':
        await this.move(r.groupId, { type: 'verify', windowSeconds: r.windowSeconds ?? 0 }, `${r.stepId}:verified`);
        await this.move(r.groupId, { type: 'resolve', manual: false, releases: group?.releases ?? [] }, `${r.stepId}:resolved`);
        return { step: null };
    }
  }

  private move(groupId: string, command: DistributiveOmit<GroupCommand, 'by' | 'now'>, commandId: string) {
    return this.lifecycle.run(groupId, { ...command, by: LEON, now: new Date().toISOString() } as GroupCommand, { commandId: `remediation:${commandId}` });
  }

  /**
   * A group's type, title and culprit: from the read model, or from its `group.opened` event when
   * the projection has not caught up with a group triaged a moment ago (the step runs off the
   * triage event, not the read model).
   */
  private async identity(groupId: string): Promise<{ type: string; title: string; culprit: string }> {
    const row = await this.reads.one(GroupRow, { groupId });
    if (row) return { type: row.type, title: row.title, culprit: row.culprit };
    const opened = (await this.store.readStream(exceptionGroupStreamId(groupId))).find((e) => e.type === 'group.opened');
    const data = (opened?.data ?? {}) as Partial<Record<'type' | 'title' | 'culprit', string>>;
    return { type: data.type ?? '', title: data.title ?? '', culprit: data.culprit ?? '' };
  }

  /** The project as its stream has it now (its team and test command may have changed since triage). */
  private async project(name: string): Promise<ActiveProject> {
    const state = foldEvents(projectDecider, (await this.store.readStream(opsProjectStreamId(name))) as unknown as ProjectEvent[]);
    return mustExist(state, name);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const facts = (p: ActiveProject): ProjectFacts => ({ project: p.project, trusted: p.trusted, ...(p.team ? { team: p.team } : {}) });

