import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, exceptionGroupStreamId, HeadspaceError, opsProjectStreamId, projectCreated, projectUpdated } from '@headspace/contracts';
import { EventStore, foldEvents, quoteIdent, type RecordedEvent } from '@headspace/event-store';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA, Sweeper } from '@headspace/platform';
import type { Pool } from 'pg';
import { GroupLifecycle } from '../groups/group-lifecycle.service';
import { groupDecider, type GroupEvent } from '../groups/group.decider';
import { ModelPort } from '../model/model-port';
import { opsMetrics } from '../ops-metrics';
import { GroupFacts } from './group-facts';
import { applyTriageRules } from './triage-rules';
import { DEEP_SYSTEM, groupPrompt, LIGHT_SYSTEM, type GroupBrief } from './triage-prompt';
import type { TriageConfig } from './triage.config';
import { deepAnswerSchema, lightAnswerSchema, modelVerdict, parseAnswer, rulesVerdict, type TriageVerdict } from './triage-verdict';

const BATCH = 16;

/**
 * Triages the groups the triage consumer put in ANALYSING, under the sweeper lease (one instance
 * at a time): rules, then the light model and, when it says complex, the deep one; then
 * `record-triage`, and `dismiss` for noise. The model calls run here, outside any transaction: a
 * consumer's inbox transaction held open over a model call would hold the cluster-wide xid8 fence
 * (and every relay behind it) for seconds. The work queue is the lifecycle itself: a group whose
 * latest transition is `analysing-started` (or a noise verdict not yet dismissed) is waiting, so a
 * crash at any point leaves it to the next pass, and every command id derives from the
 * `analysing-started` event, so a repeated pass appends nothing twice and asks the governor once.
 */
@Injectable()
export class TriageWorker extends Sweeper {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(APP_CONFIG) private readonly config: TriageConfig,
    private readonly store: EventStore,
    private readonly groups: GroupLifecycle,
    private readonly facts: GroupFacts,
    private readonly model: ModelPort,
  ) {
    super(pool, schema, { name: 'triage', intervalMs: config.HS_OPS_TRIAGE_POLL_MS });
    this.q = quoteIdent(schema);
  }

  protected async sweep(): Promise<number | void> {
    if (this.config.HS_OPS_TRIAGE === 'off') return;
    const { rows } = await this.pool.query<{ group_id: string }>(
      `SELECT g.group_id FROM ${this.q}.exception_groups g
        CROSS JOIN LATERAL (SELECT t.type FROM ${this.q}.group_transitions t WHERE t.group_id = g.group_id AND t.type <> 'group.spiked' ORDER BY t.seq DESC LIMIT 1) last
        WHERE g.state = 'ANALYSING' AND (last.type = 'group.analysing-started' OR (last.type = 'group.triaged' AND g.severity = 'noise'))
        ORDER BY g.updated_at LIMIT ${BATCH}`,
    );
    for (const { group_id } of rows) {
      if (this.stopping) return;
      await this.triage(group_id).catch((error: Error) => this.logger.warn(`triage of ${group_id}: ${error.message}`));
    }
    if (rows.length === BATCH) return 0;
  }

  /** One group, if it is still waiting for triage on its stream. */
  async triage(groupId: string): Promise<void> {
    const history = (await this.store.readStream(exceptionGroupStreamId(groupId))) as Array<RecordedEvent & GroupEvent>;
    const state = foldEvents(groupDecider, history as GroupEvent[]);
    if (state.status !== 'ANALYSING') return;
    const lifecycle = history.filter((e) => e.type !== 'group.spiked');
    const last = lifecycle[lifecycle.length - 1];
    const started = [...lifecycle].reverse().find((e) => e.type === 'group.analysing-started');
    if (!started) return;
    const ctx = (step: string) => ({ commandId: `triage:${started.eventId}:${step}`, causationId: started.eventId });
    if (last.type === 'group.triaged') {
      if (last.data.severity === 'noise') await this.dismiss(groupId, last.data.ruleReasons ?? [last.data.hypothesis], ctx('dismiss'));
      return;
    }

    const opened = history.find((e) => e.type === 'group.opened');
    const begun = Date.now();
    const brief = await this.facts.load(groupId, opened?.type === 'group.opened' ? opened.data.release : undefined, this.config.HS_OPS_TRIAGE_WINDOW_SEC, begun);
    if (!brief) return; // not projected yet: the next pass
    const verdict = await this.verdict(groupId, state.project, `${groupId}:${started.streamVersion}`, brief);
    try {
      await this.groups.run(groupId, { type: 'record-triage', ...verdict, by: 'leon', now: new Date().toISOString() }, ctx('record'));
    } catch (error) {
      // Moved on while triage ran (an operator dismissed or resolved it): the verdict is moot.
      if (error instanceof HeadspaceError && error.code === ErrorCodes.opsIllegalTransition) return;
      throw error;
    }
    opsMetrics.triaged(verdict.severity, verdict.source, (Date.now() - begun) / 1_000);
    if (verdict.severity === 'noise') await this.dismiss(groupId, verdict.ruleReasons, ctx('dismiss'));
  }

  private async verdict(groupId: string, project: string, call: string, brief: GroupBrief): Promise<TriageVerdict> {
    const rules = applyTriageRules(brief, { frequentEvents: this.config.HS_OPS_TRIAGE_FREQUENT_EVENTS });
    if (rules.severity === 'noise') return rulesVerdict(rules, brief);
    if (this.config.HS_OPS_TRIAGE === 'rules') return rulesVerdict(rules, brief, 'triage is set to rules only (HS_OPS_TRIAGE=rules)');
    const team = await this.teamOf(project);
    const ask = { persona: 'leon' as const, groupId, project, team };
    const prompt = groupPrompt(brief, rules.reasons);
    const light = parseAnswer(
      await this.model.ask({ ...ask, purpose: 'triage-light', tier: 'light', system: LIGHT_SYSTEM, prompt, maxTokens: 800, callId: `${call}:triage-light` }),
      lightAnswerSchema,
    );
    if (!light.ok) return rulesVerdict(rules, brief, `light model: ${light.reason}`, [light]);
    if (!light.value.complex) return modelVerdict(rules, light);
    const firstLook = `${light.value.hypothesis} (approach: ${light.value.approach})`;
    const deep = parseAnswer(
      await this.model.ask({ ...ask, purpose: 'triage-deep', tier: 'deep', system: DEEP_SYSTEM, prompt: groupPrompt(brief, rules.reasons, firstLook), maxTokens: 2_000, callId: `${call}:triage-deep` }),
      deepAnswerSchema,
    );
    return modelVerdict(rules, light, deep);
  }

  private async dismiss(groupId: string, reasons: string[], ctx: { commandId: string; causationId: string }): Promise<void> {
    const reason = `Triage: noise. ${reasons.join('; ')}`.slice(0, 2_000);
    await this.groups.run(groupId, { type: 'dismiss', by: 'leon', reason, now: new Date().toISOString() }, ctx).catch((error: unknown) => {
      if (!(error instanceof HeadspaceError && error.code === ErrorCodes.opsIllegalTransition)) throw error;
    });
  }

  /** The team whose budgets triage spends from: the project's own, else one named after the project. */
  private async teamOf(project: string): Promise<string> {
    let team: string | undefined;
    for (const e of await this.store.readStream(opsProjectStreamId(project))) {
      const data = e.data as { team?: string };
      if ((e.type === projectCreated.type || e.type === projectUpdated.type) && data.team) team = data.team;
    }
    return team ?? project;
  }
}
