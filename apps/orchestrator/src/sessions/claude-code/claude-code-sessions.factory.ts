import { Inject, Injectable, Optional } from '@nestjs/common';
import { runClaudeCode, toolCallPolicyOf, type ClaudePolicy, type Sandbox } from '@headspace/agent-runtime';
import { ErrorCodes, exportManifest, HeadspaceError, type EventData, type sessionStarted } from '@headspace/contracts';
import { contextWindowFor, workingWindowFor } from '@headspace/llm';
import { request } from '@headspace/messaging';
import { EventStore } from '@headspace/event-store';
import { APP_CONFIG, ErrorReporter, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import type { AppConfig } from '../../config';
import { HookFailureReporter } from '../hook-failures/hook-failure-reporter';
import { ClaudeHookEndpointService } from '../hook-endpoint/claude-hook-endpoint.service';
import { GovernorBudgetPort } from '../ports/governor-budget.adapter';
import { LlmBackendProvider } from '../ports/llm-backend.provider';
import { handoffThresholdOf } from '../ports/handoff-threshold';
import { createSessionHookEngine } from '../ports/session-hook-engine';
import { sessionPolicy } from '../ports/session-policy';
import type { SessionOutcome } from '../run-session/agent-session.runner';
import { SessionSandbox } from '../sandbox/session-sandbox.service';
import type { SessionRecorder } from '../session-recorder';
import { resolveClaudeBinary } from './claude-binary';
import { ClaudeCodeSessionRunner } from './claude-code-session.runner';
import { whenConversationHolds } from './cli-conversation';
import { EnabledPlugins } from '../../plugins/enabled-plugins.service';
import { SessionLearningsRetrieval } from '../../learnings/session-learnings-retrieval';

type Started = EventData<typeof sessionStarted>;

/** Every tool a builder's CLI session gets when neither its start nor its manifest entry names them. */
const BUILDER_TOOLS = ['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'Bash'];

/** The CLI's own window: 200K tokens unless the model is named with its `[1m]` suffix (it compacts past that). */
const cliContextWindow = (model: string) => (/\[1m\]$/i.test(model) ? 1_000_000 : 200_000);

/** The session's sandbox with what the CLI itself needs: its install read-only, its home writable. */
function cliSandbox(sandbox: Sandbox, binary: string, home: string): Sandbox {
  const install = isAbsolute(binary) ? [dirname(binary)] : [];
  return { ...sandbox, policy: { ...sandbox.policy, readOnlyPaths: [...(sandbox.policy.readOnlyPaths ?? []), ...install], writablePaths: [...(sandbox.policy.writablePaths ?? []), home] } };
}

/** Makes the runner of a `claude-code` session (SessionSupervisor picks it by the session's runtime). */
export interface ClaudeCodeSessions {
  runner(recorder: SessionRecorder, signal: AbortSignal): Promise<{ run(): Promise<SessionOutcome> }>;
}
export const CLAUDE_CODE_SESSIONS = Symbol('CLAUDE_CODE_SESSIONS');

/**
 * The orchestrator's Claude Code sessions: the CLI (HS_CLAUDE_BINARY or the installed package's
 * binary) pointed at this orchestrator's model backend — the simulator's URL when offline — with
 * the persona's manifest entry as its role, tools and owned paths, its learnings appended, the
 * simulator's situation in a header, and a CLI home of its own so the machine's settings stay out
 * and a session's conversation persists for `--resume`.
 */
@Injectable()
export class DefaultClaudeCodeSessions implements ClaudeCodeSessions {
  private readonly binary: string;
  private readonly hookFailures: HookFailureReporter;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly llm: LlmBackendProvider,
    private readonly sandboxes: SessionSandbox,
    private readonly hookEndpoint: ClaudeHookEndpointService,
    reporter: ErrorReporter,
    store: EventStore,
    @Optional() private readonly plugins?: EnabledPlugins,
    @Optional() private readonly learningStore?: SessionLearningsRetrieval,
  ) {
    this.hookFailures = new HookFailureReporter(reporter, store);
    this.binary = resolveClaudeBinary(config.HS_CLAUDE_BINARY);
  }

  async runner(recorder: SessionRecorder, signal: AbortSignal): Promise<ClaudeCodeSessionRunner> {
    const started = recorder.state.started!;
    // One home per session: its conversation persists there for --resume, out of other sessions' reach.
    const home = join(this.config.HS_AGENT_HOME, 'claude-code-home', started.sessionId.replace(/[^\w.-]/g, '_'));
    const [open, member, learnings] = await Promise.all([
      this.llm.get(),
      this.manifestMember(started),
      this.learningStore?.forSession(started) ?? '',
      mkdir(home, { recursive: true }),
      started.workspace ? mkdir(started.workspace, { recursive: true }) : undefined,
    ]);
    const policy = sessionPolicy(started, member);
    // The team's hooks, as a built-in session's: command hooks in the session's sandbox (SANDBOX.UNAVAILABLE: no session).
    const sandbox = started.workspace ? await this.sandboxes.forSession(started, started.workspace) : undefined;
    // With the hooks of the plugins enabled in the session's team (ADR 0045).
    const pluginHooks = (await this.plugins?.partsFor(started.team))?.hooks ?? [];
    const engine = await createSessionHookEngine(this.config, started, this.hookFailures, sandbox, { pluginHooks });
    const hookSession = { sessionId: started.sessionId, cwd: started.workspace ?? process.cwd(), agentId: started.persona, persona: started.persona, model: started.model };
    const openHooks = (p: ClaudePolicy, tools: readonly string[], halt: (toolUseId: string | undefined) => Promise<string | undefined>) =>
      this.hookEndpoint.open({ engine, session: hookSession, policy: toolCallPolicyOf(p, tools), halt });
    const budget = new GovernorBudgetPort(
      this.nc,
      { sessionId: started.sessionId, persona: started.persona, team: started.team, project: started.runId ?? started.team, surface: 'api', ...(started.taskId ? { taskId: started.taskId } : {}) },
      started.effort,
    );
    return new ClaudeCodeSessionRunner(
      recorder,
      { budget, clock: () => new Date().toISOString(), runCli: runClaudeCode, openHooks, conversationSaved: (messageId) => whenConversationHolds(home, started.sessionId, messageId) },
      {
        binary: this.binary,
        env: {
          HOME: home,
          ANTHROPIC_BASE_URL: open.backend.baseURL,
          ANTHROPIC_API_KEY: open.backend.apiKey,
          // The simulator picks its script by the situation, as the built-in runner's `Situation:` line does.
          ANTHROPIC_CUSTOM_HEADERS: `X-Headspace-Situation: ${started.situation ?? started.kind}`,
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          GIT_AUTHOR_NAME: started.persona,
          GIT_AUTHOR_EMAIL: `${started.persona}@headspace.local`,
          GIT_COMMITTER_NAME: started.persona,
          GIT_COMMITTER_EMAIL: `${started.persona}@headspace.local`,
        },
        role: member?.role ?? `${started.kind} session`,
        ...(started.agent ? { agent: { name: started.agent.name, prompt: started.agent.systemPrompt } } : {}),
        learnings,
        tools: policy.tools ?? BUILDER_TOOLS,
        owns: policy.owns ?? [],
        maxTurns: started.agent?.maxTurns ?? this.config.SESSION_MAX_TURNS,
        maxOutputTokens: this.config.SESSION_MAX_OUTPUT_TOKENS,
        fallbackBudgetUsd: member?.budget ?? this.config.HS_CLAUDE_MAX_BUDGET_USD,
        handoffThreshold: handoffThresholdOf(this.config),
        contextWindow: (model) => Math.min(workingWindowFor(model, contextWindowFor(model), this.llm.priceTable()), cliContextWindow(model)),
        ...(sandbox ? { sandbox: cliSandbox(sandbox, this.binary, home) } : {}),
      },
      signal,
    );
  }

  private async manifestMember(s: Started) {
    if (s.kind !== 'task' || s.tools || s.ownedPaths) return undefined;
    try {
      return (await request(this.nc, exportManifest, { team: s.team })).members.find((m) => m.name === s.persona);
    } catch (error) {
      if (error instanceof HeadspaceError && error.code === ErrorCodes.manifestNotFound) return undefined;
      throw error;
    }
  }
}
