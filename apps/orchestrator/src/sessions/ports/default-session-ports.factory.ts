import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { composePrompt, LearningsStore, SkillFileStore, type HookSession } from '@headspace/agent-runtime';
import { ErrorCodes, exportManifest, HeadspaceError, listPersonas, openInbox, type EventData, type sessionStarted } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { EventStore } from '@headspace/event-store';
import { APP_CONFIG, ErrorReporter, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../../config';
import { teamMailAdapter } from '../adapters/team-mail.adapter';
import { HookFailureReporter } from '../hook-failures/hook-failure-reporter';
import type { MailPort } from '../run-session/session-ports';
import type { SessionLimits, SessionPorts } from '../run-session/agent-session.runner';
import { SessionSandbox } from '../sandbox/session-sandbox.service';
import type { SessionPortsFactory } from '../session-supervisor';
import { GovernorBudgetPort } from './governor-budget.adapter';
import { LlmBackendProvider } from './llm-backend.provider';
import { LlmModelPort } from './llm-model.adapter';
import { handoffPort, reflectionPort } from './protocol-ports';
import { compactThresholdOf, handoffThresholdOf } from './handoff-threshold';
import { LlmHookEvaluator } from './hook-evaluator.adapter';
import { AsyncHookInbox, HookLifecycle } from './hook-lifecycle.adapter';
import { SessionCompaction } from './session-compaction.adapter';
import { createSessionHookEngine } from './session-hook-engine';
import { sessionPolicy, type ManifestMember } from './session-policy';
import { TEAM_TOOLS_PORT, type TeamToolsFor } from './team-tools.port';
import { WorkspaceToolPort } from './workspace-tools.adapter';
import { SubagentSessions } from '../subagents/subagent-sessions.service';
import { mcpWarnings, openMcpServers } from '../../mcp/open-mcp-servers';
import { EnabledPlugins } from '../../plugins/enabled-plugins.service';
import { SkillRegistry } from '../../skill-registry/skill-registry.service';
import { SessionLearningsRetrieval } from '../../learnings/session-learnings-retrieval';

type Started = EventData<typeof sessionStarted>;

export const displayName = (persona: string) => persona.charAt(0).toUpperCase() + persona.slice(1);

/**
 * Builds a session's ports from how it was started: the model (Claude or the simulator), the
 * workspace and team tools behind the hook engine and the persona's permissions, the cost
 * governor, the persona's mailbox, the reflection and handoff protocols — and the system prompt in
 * seed 001's order with the `Persona:` and `Situation:` lines the simulator keys on. What a session
 * learned is kept by SessionLearningsProcess, off the session's path.
 */
@Injectable()
export class DefaultSessionPortsFactory implements SessionPortsFactory {
  private readonly logger = new Logger('SessionPorts');
  private readonly learnings: LearningsStore;
  private readonly skills: SkillFileStore;
  private readonly hookFailures: HookFailureReporter;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly llm: LlmBackendProvider,
    @Inject(TEAM_TOOLS_PORT) private readonly teamTools: TeamToolsFor,
    private readonly sandboxes: SessionSandbox,
    reporter: ErrorReporter,
    store: EventStore,
    private readonly subagents: SubagentSessions,
    @Optional() private readonly plugins?: EnabledPlugins,
    @Optional() private readonly learningStore?: SessionLearningsRetrieval,
    @Optional() private readonly skillRegistry?: SkillRegistry,
  ) {
    this.hookFailures = new HookFailureReporter(reporter, store);
    this.learnings = new LearningsStore({ home: config.HS_AGENT_HOME });
    this.skills = new SkillFileStore(this.learnings);
  }

  async create(started: Started): Promise<{ ports: SessionPorts; limits: SessionLimits; close: () => Promise<void> }> {
    const abort = new AbortController();
    const workspace = started.workspace ?? join(this.config.HS_WORKSPACES_DIR, 'sessions', started.sessionId);
    const [backend, member] = await Promise.all([this.llm.get(), this.manifestMember(started), mkdir(workspace, { recursive: true })]);
    // Bash and command hooks run in it; SANDBOX.UNAVAILABLE here means the session does not run at all.
    const sandbox = await this.sandboxes.forSession(started, workspace);
    const team = this.teamTools(started.team);
    const policy = sessionPolicy(started, member);
    const model = new LlmModelPort(backend.client, abort.signal, this.llm.priceTable);
    const budget = new GovernorBudgetPort(
      this.nc,
      { sessionId: started.sessionId, persona: started.persona, team: started.team, project: started.runId ?? started.team, surface: 'api', ...(started.taskId ? { taskId: started.taskId } : {}) },
      started.effort,
    );
    // Prompt and agent hooks on a light model through the same port and governor; async hooks' outcomes reach the next turn.
    // The workspace's own settings only with a sandbox: their command hooks then run where its Bash does, never on the host.
    const evaluator = new LlmHookEvaluator(model, budget, this.config.HS_HOOK_MODEL);
    const inbox = new AsyncHookInbox();
    // Only the plugins enabled in this session's team bring hooks and MCP servers (ADR 0045).
    const plugins = await this.plugins?.partsFor(started.team);
    const [hooks, system, mcp] = await Promise.all([
      createSessionHookEngine(this.config, started, this.hookFailures, sandbox, {
        ...(sandbox ? { projectDir: workspace } : {}),
        promptEvaluator: evaluator,
        agentEvaluator: evaluator,
        onAsyncOutcome: inbox.push,
        pluginHooks: plugins?.hooks ?? [],
      }),
      this.systemPrompt(started, member, policy.owns),
      openMcpServers(this.config, workspace, {
        ...(sandbox ? { sandbox } : {}),
        extraEnv: { HEADSPACE_SESSION_ID: started.sessionId, HEADSPACE_TEAM: started.team, HEADSPACE_PERSONA: started.persona },
        pluginServers: plugins?.mcpServers ?? [],
      }),
    ]);
    for (const warning of mcpWarnings(mcp)) this.logger.warn(`session ${started.sessionId}: ${warning}`);
    // The common input of every hook this session fires, and the session variables of command hooks.
    const hookSession: HookSession = { sessionId: started.sessionId, cwd: workspace, agentId: started.persona, persona: started.persona, model: started.model, sessionType: 'headless' };
    const window = model.contextWindow(started.model);
    const ports: SessionPorts = {
      model,
      tools: new WorkspaceToolPort({ workspace, agentId: started.persona, team: started.team, sessionId: started.sessionId, policy, hooks, hookSession, teamTools: team, lockChecker: team, signal: abort.signal, ...(sandbox ? { sandbox } : {}), mcpTools: mcp.connections.tools(), toolSearchThreshold: this.config.HS_MCP_TOOL_SEARCH_THRESHOLD }),
      budget,
      mail: this.mailbox(started),
      reflection: reflectionPort,
      handoff: handoffPort,
      system: [{ type: 'text', text: system }],
      clock: () => new Date().toISOString(),
      lifecycle: new HookLifecycle(hooks, hookSession, inbox),
      compaction: new SessionCompaction(compactThresholdOf(this.config, window), workspace, { sessionId: started.sessionId, persona: started.persona, model: started.model }, window),
    };
    const limits: SessionLimits = { maxTurns: this.config.SESSION_MAX_TURNS, maxOutputTokens: this.config.SESSION_MAX_OUTPUT_TOKENS, handoffThreshold: handoffThresholdOf(this.config) };
    const built = { ports, limits, close: async () => { abort.abort(); await mcp.connections.close(); } };
    // Agents as tools for a lead; a subagent's own prompt, limits and hooks for a child (see SubagentSessions).
    const decorated = await this.subagents.decorate(started, built, { hooks, policy, ...(sandbox ? { sandbox } : {}) });
    // SKILL.md skills (ADR 0046): their listing, the Skill tool, and a slash command's skill loaded from the start.
    return this.skillRegistry ? this.skillRegistry.decorate(started, decorated, { hooks, session: hookSession, policy }) : decorated;
  }

  private async systemPrompt(s: Started, member: ManifestMember | undefined, owns: readonly string[] | undefined): Promise<string> {
    const personaOf = this.persona(s.persona);
    const [persona, skillFile, learnings] = await Promise.all([
      personaOf,
      // skill.md (seed 000 §5.3): the shipped default is written the first time a persona has none.
      personaOf.then((p) => this.skills.ensure(s.persona, { name: p?.name, description: p?.description, roleType: p?.roleType })).then((f) => f.text, () => undefined),
      // The learning store's ranked pick for this task (ADR 0048), recorded as given to this session.
      this.learningStore?.forSession(s) ?? '',
    ]);
    const composed = composePrompt({
      identity: { name: persona?.name ?? displayName(s.persona), ...(persona?.description ? { description: persona.description } : {}) },
      role: member?.role ?? (persona ? `${persona.roleType} (${persona.mode} mode)` : undefined),
      ...(owns?.length ? { owns: [...owns] } : {}),
      skillFile,
      learnings: learnings || undefined,
      task: '',
    });
    // The simulator picks its script by these two lines; a real model reads them as plain context.
    return [composed.system, `Persona: ${s.persona}\nSituation: ${s.situation ?? s.kind}`].join('\n\n');
  }

  private async persona(id: string) {
    try {
      return (await request(this.nc, listPersonas, {})).personas.find((p) => p.personaId === id);
    } catch (error) {
      this.logger.warn(`personas unavailable (${(error as Error).message}); using the persona id as its name`);
      return undefined;
    }
  }

  /** The persona's entry in its team's manifest; none when the team has no manifest or does not list it. */
  private async manifestMember(s: Started): Promise<ManifestMember | undefined> {
    if (s.kind !== 'task' || s.tools || s.ownedPaths) return undefined;
    try {
      return (await request(this.nc, exportManifest, { team: s.team })).members.find((m) => m.name === s.persona);
    } catch (error) {
      if (error instanceof HeadspaceError && error.code === ErrorCodes.manifestNotFound) return undefined;
      throw error;
    }
  }

  /** The persona's inbox in the team; a team-manager that cannot be reached means no mail this turn, not a failed session. */
  private mailbox(s: Started): MailPort {
    const inner = teamMailAdapter(this.nc, s.team, s.persona, s.sessionId);
    let opened = false;
    return {
      peek: async () => {
        try {
          if (!opened) await request(this.nc, openInbox, { team: s.team, memberId: s.persona, role: 'member' }, { commandId: `${s.sessionId}:inbox` });
          opened = true;
          return await inner.peek();
        } catch (error) {
          this.logger.warn(`mail for ${s.persona} in ${s.team}: ${(error as Error).message}`);
          return { messageIds: [] };
        }
      },
      markRead: async (mail, turn) => {
        try {
          await inner.markRead(mail, turn);
        } catch (error) {
          // Injected but still unread: the next turn sees it again rather than never.
          this.logger.warn(`marking mail read for ${s.persona} in ${s.team}: ${(error as Error).message}`);
        }
      },
    };
  }

}
