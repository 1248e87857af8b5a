import { Inject, Injectable, Logger } from '@nestjs/common';
import { DEFAULT_SKILL_BUDGET, defaultSkillFile, estimateTokens, LearningsStore, parseSkillFile, PENDING_SECTION, SkillFileStore, skillTokens } from '@headspace/agent-runtime';
import {
  getApproval,
  HeadspaceError,
  requestApproval,
  skillStreamId,
  skillUpdated,
  type EventData,
  type PersonaSkillView,
  type Reflection,
} from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { z } from 'zod';
import type { AppConfig } from '../config';
import { SkillCurationModes } from './skill-curation';

/** What a `skill-file-update` approval carries: enough to merge it when the decision arrives. */
export const skillApprovalPayloadSchema = z.object({
  persona: z.string(),
  lines: z.array(z.string().min(1).max(600)).min(1).max(50),
  sessionId: z.string().optional(),
});

export interface ReflectedSkillUpdates {
  /** The `session.reflected` event: approvals and records derive their ids from it (a replay asks once). */
  eventId: string;
  sessionId: string;
  persona: string;
  team: string;
  reflection: Reflection;
  task?: string;
}

const retryable = (code: string) => code.startsWith('MESSAGING.') || code === 'INTERNAL.UNEXPECTED' || code === 'DATABASE.UNAVAILABLE';
const clip = (lines: string[], n: number) => lines.slice(0, n).map((l) => (l.length > 600 ? `${l.slice(0, 599)}…` : l));

/**
 * Skill evolution (seed 000 §7, issue 22 scope 3): a reflection's `skill_updates` become proposals
 * handled by the team's curation mode — `approval` asks the team's approvals queue and merges the
 * lines when approved (SkillApprovalConsumer), `pending` parks them in skill.md's Pending section,
 * `auto` merges them and curates the file to the seed's token budget. Every change is recorded as
 * `skill.updated` on `skill-<persona>`. The files are the persona's under HS_AGENT_HOME, which the
 * session prompt reads.
 */
@Injectable()
export class SkillEvolution {
  private readonly logger = new Logger('SkillEvolution');
  readonly skills: SkillFileStore;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly store: EventStore,
    private readonly modes: SkillCurationModes,
  ) {
    this.skills = new SkillFileStore(new LearningsStore({ home: config.HS_AGENT_HOME }));
  }

  /** A reflected session's `skill_updates`, by the team's mode. Refusals that never become valid are logged, not thrown. */
  async propose(r: ReflectedSkillUpdates): Promise<void> {
    const lines = this.skills.proposeFromReflection(r.persona, r.reflection, r.task).map((p) => p.line);
    if (lines.length === 0) return;
    const mode = await this.modes.of(r.team);
    try {
      if (mode === 'approval') await this.askApproval(r, lines);
      else {
        const merged = await this.skills.merge(r.persona, lines, mode === 'auto' ? 'experience' : 'pending', mode === 'auto' ? DEFAULT_SKILL_BUDGET : undefined);
        await this.record(r.persona, `skill-proposal:${r.eventId}`, {
          team: r.team,
          source: mode,
          sessionId: r.sessionId,
          added: merged.added,
          removed: merged.removed,
          tokens: estimateTokens(merged.text),
          by: r.persona,
        });
      }
    } catch (error) {
      if (!(error instanceof HeadspaceError) || retryable(error.code)) throw error;
      this.logger.warn(`skill updates of ${r.persona} from session ${r.sessionId}: ${error.code} ${error.message}`);
    }
  }

  private async askApproval(r: ReflectedSkillUpdates, lines: string[]): Promise<void> {
    await request(
      this.nc,
      requestApproval,
      {
        team: r.team,
        kind: 'skill-file-update',
        requester: r.persona,
        summary: `Add ${lines.length} line${lines.length === 1 ? '' : 's'} to ${r.persona}'s skill.md (Learned Experience)`.slice(0, 500),
        payload: { persona: r.persona, sessionId: r.sessionId, lines },
        timeoutMs: this.config.HS_SKILL_APPROVAL_TIMEOUT_MS,
        defaultAnswer: 'deny',
      },
      { commandId: `skill-approval:${r.eventId}`, causationId: r.eventId },
    );
  }

  /** An approved `skill-file-update`: its lines merged into Learned Experience, once per approval. */
  async applyApproved(d: { approvalId: string; team: string; decidedBy: string }): Promise<{ persona: string; added: string[] } | undefined> {
    const approval = await request(this.nc, getApproval, { approvalId: d.approvalId });
    const payload = skillApprovalPayloadSchema.safeParse(approval.payload);
    if (!payload.success) {
      this.logger.warn(`approval ${d.approvalId} is a skill-file-update without persona and lines: nothing merged`);
      return undefined;
    }
    const { persona, lines, sessionId } = payload.data;
    const merged = await this.skills.merge(persona, lines, 'experience');
    await this.record(persona, `skill-approval-decided:${d.approvalId}`, {
      team: d.team,
      source: 'approval',
      approvalId: d.approvalId,
      ...(sessionId ? { sessionId } : {}),
      added: merged.added,
      removed: [],
      tokens: estimateTokens(merged.text),
      by: d.decidedBy,
    });
    return { persona, added: merged.added };
  }

  /** The persona's skill file as the API shows it: the shipped default (not written: its first session writes it) when it has none. */
  async view(persona: string): Promise<PersonaSkillView> {
    const existing = await this.skills.readText(persona);
    const text = existing ?? defaultSkillFile({ persona });
    const file = parseSkillFile(text);
    return {
      persona,
      text,
      ...skillTokens(file),
      budget: { ...DEFAULT_SKILL_BUDGET },
      pending: file.sections.find((s) => s.name === PENDING_SECTION)?.lines ?? [],
      shippedDefault: existing === undefined,
    };
  }

  /** The operator's edit: the whole file replaced (a v2 curation is an edit of the Pending section). */
  async replace(persona: string, text: string, by: string, commandId?: string): Promise<PersonaSkillView> {
    await this.skills.write(persona, text);
    await this.record(persona, commandId ? `skill-put:${commandId}` : undefined, { source: 'operator', added: [], removed: [], tokens: estimateTokens(text), by });
    return this.view(persona);
  }

  private async record(persona: string, commandId: string | undefined, data: Omit<EventData<typeof skillUpdated>, 'persona' | 'at'>): Promise<void> {
    const event: EventData<typeof skillUpdated> = { persona, ...data, added: clip(data.added, 50), removed: clip(data.removed, 500), at: new Date().toISOString() };
    await this.store.append(skillStreamId(persona), [{ type: skillUpdated.type, data: event }], { expected: 'any', ...(commandId ? { commandId } : {}) });
  }
}
