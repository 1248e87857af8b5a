import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { toAgentRuntimeSettings, type AgentDefinition, type HookEngine, type Sandbox, type ToolPermissionPolicy } from '@headspace/agent-runtime';
import { manifestToolSchema, sessionStreamId, type EventData, type sessionStarted, type SubagentResult } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentRegistries } from '../../agents/agent-registries.service';
import { withAgentDefinition } from '../../agents/agent-session';
import { LlmBackendProvider } from '../ports/llm-backend.provider';
import { reflectionPort } from '../ports/protocol-ports';
import { SessionInterrupted, type SessionLimits, type SessionPorts } from '../run-session/agent-session.runner';
import type { MailPort, ReflectionPort } from '../run-session/session-ports';
import { SessionRecorder } from '../session-recorder';
import { SessionSupervisor } from '../session-supervisor';
import { delegableAgents } from './agent-tools';
import { subagentResultOf } from './subagent-result';
import { SubagentToolPort } from './subagent-tool.port';

type Started = EventData<typeof sessionStarted>;
type Built = { ports: SessionPorts; limits: SessionLimits; close: () => Promise<void> };

/** The situation a child's system prompt names (the simulator's scenario key for subagents). */
export const SUBAGENT_SITUATION = 'subagent';
const WORKSPACE_TOOLS = ['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'Bash'];
const POLL_MS = 500;

const noMail: MailPort = { peek: async () => ({ messageIds: [] }), markRead: async () => undefined };

/** A subagent answers its lead, not the team: its final text is its result; a seed reflection is kept when it gives one. */
const subagentReflection: ReflectionPort = {
  retryPrompt: reflectionPort.retryPrompt,
  parse: (text) => {
    const seed = reflectionPort.parse(text);
    return seed.ok ? seed : { ok: true, reflection: { subagent_result: text.slice(0, 20_000) } };
  },
};

/** A child session's id: derived from the lead's and the tool call's, so a resumed lead finds the same child. */
export const childSessionId = (leadSessionId: string, toolUseId: string) => `${leadSessionId}--${toolUseId.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 200);

/**
 * Subagents as child sessions. A lead's `agent__<name>` call starts a session through the
 * SessionSupervisor with `parentSessionId` (the log shows both ends: the child's `session.started`
 * names its lead, the lead's `tool-called` holds the child's AgentResult with its session id); it
 * runs under its own lease, stream and budget reservations (persona = the agent's name, its own
 * model, effort and tool allow-list), so a crash resumes it like any session and the lead, resumed
 * too, waits for the same child instead of starting another. The ports of both are built by
 * DefaultSessionPortsFactory, which hands them here to be adjusted (see decorate). ADR 0030.
 */
@Injectable()
export class SubagentSessions implements BeforeApplicationShutdown {
  private readonly stopping = new AbortController();
  private readonly logger = new Logger(SubagentSessions.name);

  constructor(
    private readonly registries: AgentRegistries,
    private readonly store: EventStore,
    private readonly llm: LlmBackendProvider,
    private readonly moduleRef: ModuleRef,
  ) {}

  beforeApplicationShutdown(): void {
    // A lead waiting on a child is interrupted with it and resumes (and waits again) after restart.
    this.stopping.abort();
  }

  /** A lead gets the agent tools its policy allows; a child gets its definition's prompt, turn limit and hooks, and no mail. */
  async decorate(started: Started, given: Built, ctx: { hooks: HookEngine; policy: ToolPermissionPolicy; sandbox?: Sandbox }): Promise<Built> {
    if (started.parentSessionId) return this.asChild(started, given, ctx.hooks);
    // An ask's or run's session running a custom agent (`--agent`): its prompt and turn limit.
    const built = withAgentDefinition(started, given);
    if (!started.workspace) return built;
    const registry = await this.registries.forProject(started.workspace, started.team).catch((error: Error) => {
      // Agents only add tools: a project whose agent directory cannot be read runs without them.
      this.logger.warn(`session ${started.sessionId}: no agents (${error.message})`);
      return undefined;
    });
    const agents = registry ? delegableAgents(registry.list(), ctx.policy) : [];
    if (agents.length === 0) return built;
    const tools = new SubagentToolPort(built.ports.tools, {
      agents,
      hooks: ctx.hooks,
      session: { sessionId: started.sessionId, cwd: started.workspace, agentId: started.persona, persona: started.persona, model: started.model },
      delegate: (agent, task) => this.delegate(started, agent, task),
      ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
    });
    return { ...built, ports: { ...built.ports, tools } };
  }

  /** Runs the agent as a child session of the lead and returns its AgentResult once it has ended. */
  async delegate(lead: Started, agent: AgentDefinition, task: { prompt: string; toolUseId: string }): Promise<SubagentResult> {
    const sessionId = childSessionId(lead.sessionId, task.toolUseId);
    let recorder = await SessionRecorder.load(this.store, sessionId);
    if (recorder.state.status !== 'ended') {
      const supervisor = this.moduleRef.get(SessionSupervisor, { strict: false });
      const ended = supervisor.whenEnded(sessionId);
      await supervisor.start({
        sessionId,
        parentSessionId: lead.sessionId,
        team: lead.team,
        ...agentSessionFields(agent, lead),
        kind: 'task',
        ...(lead.runId ? { runId: lead.runId } : {}),
        ...(lead.taskId ? { taskId: lead.taskId } : {}),
        runtime: 'built-in',
        simulated: lead.simulated,
        prompt: task.prompt,
        ...(lead.workspace ? { workspace: lead.workspace } : {}),
        situation: SUBAGENT_SITUATION,
      });
      await this.untilEnded(sessionId, ended);
      recorder = await SessionRecorder.load(this.store, sessionId);
    }
    return subagentResultOf(agent.key, recorder.events, this.llm.priceTable());
  }

  private async asChild(started: Started, built: Built, hooks: HookEngine): Promise<Built> {
    const agent = started.workspace ? (await this.registries.forProject(started.workspace, started.team)).find(started.persona) : undefined;
    const settings = agent ? toAgentRuntimeSettings(agent, { model: started.model, effort: started.effort }) : undefined;
    // Its non-Stop frontmatter hooks apply inside the child; its Stop hooks fire as SubagentStop on the lead's side.
    try {
      if (agent?.hooks) hooks.addHooks('agent', agent.hooks, { source: agent.source, asSubagent: true });
    } catch (error) {
      // A child that cannot be built would be retried by the sweep forever while its lead waits: it runs without them.
      this.logger.warn(`subagent ${started.sessionId}: hooks of ${agent?.source} ignored (${(error as Error).message})`);
    }
    const prompt = settings?.systemPrompt || `You are the ${started.persona} agent.`;
    // The simulator picks its script by these two lines; a real model reads them as plain context.
    const system = `${prompt}\n\nPersona: ${started.persona}\nSituation: ${started.situation ?? SUBAGENT_SITUATION}`;
    return {
      ...built,
      ports: { ...built.ports, system: [{ type: 'text', text: system }], mail: noMail, reflection: subagentReflection },
      limits: { ...built.limits, maxTurns: Math.min(settings?.maxTurns ?? built.limits.maxTurns, built.limits.maxTurns) },
    };
  }

  /** The child's end here (whenEnded), or recorded by whichever instance runs it (after a takeover). */
  private async untilEnded(sessionId: string, endedHere: Promise<unknown>): Promise<void> {
    let done = false;
    void endedHere.then(() => (done = true));
    while (!done) {
      if (this.stopping.signal.aborted) throw new SessionInterrupted();
      await Promise.race([endedHere, sleep(POLL_MS, undefined, { signal: this.stopping.signal }).catch(() => undefined)]);
      if (done) return;
      const events = await this.store.readStream(sessionStreamId(sessionId)).catch(() => []);
      if (events.some((e) => e.type === 'session.ended')) return;
    }
  }
}

/**
 * What a session running an agent definition is started with: the agent's name as persona, its
 * model (aliases resolved, `inherit` = the parent's) and effort, and its allow-list. Subagents use
 * it; so can `--agent <name>` on asks and runs (the parent is then the operator's pinned choice).
 */
export function agentSessionFields(agent: AgentDefinition, parent: { model: string; effort: Started['effort'] }): Pick<Started, 'persona' | 'model' | 'effort' | 'tools'> {
  const settings = toAgentRuntimeSettings(agent, { model: parent.model, effort: parent.effort });
  const tools = allowList(settings.tools, settings.disallowedTools);
  return { persona: agent.key, model: settings.model, effort: settings.effort, ...(tools ? { tools } : {}) };
}

/**
 * The child's allow-list as session.started carries it: the definition's `tools`, or every
 * workspace tool minus `disallowedTools`; none when it may use everything (team tools always stay).
 */
export function allowList(tools: string[] | undefined, disallowed: string[] | undefined): string[] | undefined {
  if (tools) return tools.includes('*') ? undefined : tools.filter((t) => manifestToolSchema.safeParse(t).success);
  if (!disallowed?.length) return undefined;
  return WORKSPACE_TOOLS.filter((t) => !disallowed.includes(t));
}
