import { Inject, Injectable, Logger } from '@nestjs/common';
import { composePrompt, createHookEngine, LearningsStore, SkillFileStore, type ToolPermissionPolicy } from '@headspace/agent-runtime';
import { listPersonas, openInbox, sessionStreamId, type EventData, type sessionStarted } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../../config';
import { NatsTeamTools } from '../adapters/nats-team-tools.adapter';
import { teamMailAdapter } from '../adapters/team-mail.adapter';
import type { MailPort } from '../run-session/session-ports';
import type { SessionLimits, SessionPorts } from '../run-session/agent-session.runner';
import type { SessionPortsFactory } from '../session-supervisor';
import { GovernorBudgetPort } from './governor-budget.adapter';
import { LlmBackendProvider } from './llm-backend.provider';
import { LlmModelPort } from './llm-model.adapter';
import { handoffPort, reflectionPort } from './protocol-ports';
import { WorkspaceToolPort } from './workspace-tools.adapter';

type Started = EventData<typeof sessionStarted>;

const READ_ONLY = ['Read', 'Glob', 'Grep'];

/**
 * What each kind of session may do. Robbo's workshop and review and Gavin's decomposition only
 * read (Robbo never gets code-writing tools); Verner writes tests and nothing else; builders may
 * use every tool. Team tools are always offered.
 */
export function policyFor(kind: Started['kind']): ToolPermissionPolicy {
  switch (kind) {
    case 'workshop':
    case 'review':
    case 'decomposition':
      return { tools: READ_ONLY };
    case 'qa':
      return { tools: [...READ_ONLY, 'Write', 'Edit', 'MultiEdit', 'Bash'], owns: ['test/**', 'tests/**', '**/*.test.*', '**/*.spec.*'], ownsPolicy: 'refuse' };
    case 'task':
      return {};
  }
}

export const displayName = (persona: string) => persona.charAt(0).toUpperCase() + persona.slice(1);

/**
 * Builds a session's ports from how it was started: the model (Claude or the simulator), the
 * workspace and team tools behind the hook engine and the persona's permissions, the cost
 * governor, the persona's mailbox, the reflection and handoff protocols — and the system prompt in
 * seed 001's order with the `Situation:` line. When the session is over, its reflection's
 * suggested learnings go to the persona's learnings.md.
 */
@Injectable()
export class DefaultSessionPortsFactory implements SessionPortsFactory {
  private readonly logger = new Logger('SessionPorts');
  private readonly learnings: LearningsStore;
  private readonly skills: SkillFileStore;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly llm: LlmBackendProvider,
    private readonly store: EventStore,
  ) {
    this.learnings = new LearningsStore({ home: config.HS_AGENT_HOME });
    this.skills = new SkillFileStore(this.learnings);
  }

  async create(started: Started): Promise<{ ports: SessionPorts; limits: SessionLimits; close: () => Promise<void> }> {
    const abort = new AbortController();
    const backend = await this.llm.get();
    const workspace = started.workspace ?? join(this.config.HS_WORKSPACES_DIR, 'sessions', started.sessionId);
    await mkdir(workspace, { recursive: true });
    const team = new NatsTeamTools(this.nc, started.team);
    const hooks = await createHookEngine({});
    const ports: SessionPorts = {
      model: new LlmModelPort(backend.client, abort.signal),
      tools: new WorkspaceToolPort({ workspace, agentId: started.persona, team: started.team, sessionId: started.sessionId, policy: policyFor(started.kind), hooks, teamTools: team, lockChecker: team, signal: abort.signal }),
      budget: new GovernorBudgetPort(
        this.nc,
        { sessionId: started.sessionId, persona: started.persona, team: started.team, project: started.runId ?? started.team, surface: 'api', ...(started.taskId ? { taskId: started.taskId } : {}) },
        started.effort,
      ),
      mail: await this.mailbox(started),
      reflection: reflectionPort,
      handoff: handoffPort,
      system: [{ type: 'text', text: await this.systemPrompt(started) }],
      clock: () => new Date().toISOString(),
    };
    const limits: SessionLimits = { maxTurns: this.config.SESSION_MAX_TURNS, maxOutputTokens: this.config.SESSION_MAX_OUTPUT_TOKENS, handoffThreshold: this.config.SESSION_HANDOFF_THRESHOLD };
    return { ports, limits, close: async () => (abort.abort(), this.keepLearnings(started)) };
  }

  private async systemPrompt(s: Started): Promise<string> {
    const persona = await this.persona(s.persona);
    const composed = composePrompt({
      identity: { name: persona?.name ?? displayName(s.persona), ...(persona?.description ? { description: persona.description } : {}) },
      role: persona ? `${persona.roleType} (${persona.mode} mode)` : undefined,
      skillFile: await this.skills.readText(s.persona).catch(() => undefined),
      learnings: (await this.learnings.renderForPrompt(s.persona, s.prompt).catch(() => '')) || undefined,
      task: '',
    });
    return [composed.system, `Situation: ${s.situation ?? s.kind}`].join('\n\n');
  }

  private async persona(id: string) {
    try {
      return (await request(this.nc, listPersonas, {})).personas.find((p) => p.personaId === id);
    } catch (error) {
      this.logger.warn(`personas unavailable (${(error as Error).message}); using the persona id as its name`);
      return undefined;
    }
  }

  /** The persona's inbox in the team; a team-manager that cannot be reached means no mail this turn, not a failed session. */
  private async mailbox(s: Started): Promise<MailPort> {
    const inner = teamMailAdapter(this.nc, s.team, s.persona);
    let opened = false;
    return {
      takeUnread: async () => {
        try {
          if (!opened) await request(this.nc, openInbox, { team: s.team, memberId: s.persona, role: 'member' }, { commandId: `${s.sessionId}:inbox` });
          opened = true;
          return await inner.takeUnread();
        } catch (error) {
          this.logger.warn(`mail for ${s.persona} in ${s.team}: ${(error as Error).message}`);
          return { messageIds: [] };
        }
      },
    };
  }

  private async keepLearnings(s: Started): Promise<void> {
    const events = await this.store.readStream(sessionStreamId(s.sessionId));
    if (!events.some((e) => e.type === 'session.ended')) return; // interrupted: it resumes, and learns when it ends
    const reflected = events.find((e) => e.type === 'session.reflected')?.data as { reflection?: Record<string, unknown>; malformed: boolean } | undefined;
    if (!reflected?.reflection || reflected.malformed) return;
    try {
      await this.learnings.applyReflection(s.persona, reflected.reflection as never);
    } catch (error) {
      this.logger.warn(`learnings of ${s.persona}: ${(error as Error).message}`);
    }
  }
}
