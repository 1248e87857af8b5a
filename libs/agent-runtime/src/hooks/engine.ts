import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import type { Sandbox } from '../sandbox/sandbox-spawn';
import { scrubEnv } from '../tools/bash-tool';
import { fileTools } from '../tools/fs-tools';
import type { AnyToolDefinition } from '../tools/types';
import { compileMatcher, DEFAULT_HOOK_TIMEOUT_S, parseHookSettings, scopeRank, type HookHandlerConfig, type HookScope, type HookSettings, type HookSettingsFile } from './config';
import { BLOCKING_EVENTS, HOOK_EVENTS, matcherTarget, type HookEventName, type HookInput, type HookPayloads, type SessionType, type ToolInputObject } from './events';
import { runAgentHook, runCommandHook, runPromptHook, withTimeout, type AgentEvaluator, type HandlerRun, type HookHandlerOutput, type PromptEvaluator } from './handlers';

/** What a built-in (in-process, shell-free) handler gets besides the input. */
export interface BuiltinHookContext {
  env: Record<string, string>;
  signal: AbortSignal;
  /** The session's sandbox: a built-in that starts a process (format-on-write) starts it in there. */
  sandbox?: Sandbox;
}

/** A hook implemented in TypeScript (the Req 27 patterns); registered like any other hook. */
export interface BuiltinHookHandler {
  type: 'builtin';
  name: string;
  timeout?: number;
  async?: boolean;
  run(input: HookInput, ctx: BuiltinHookContext): Promise<HookHandlerOutput> | HookHandlerOutput;
}

export type RegisteredHandler = HookHandlerConfig | BuiltinHookHandler;

export interface HookRegistration {
  scope: HookScope;
  /** File path, plugin/skill/agent name, or `builtin`. */
  source: string;
  event: HookEventName;
  matcher?: string;
  handler: RegisteredHandler;
}

/**
 * One handler's part in one event, for the caller to record (`hook decision` events, spans).
 * `result`: allow/deny/ask/noop = decided; error/timeout = failed (non-blocking); async = started
 * in the background; skipped = ignored by policy (allowManagedHooksOnly).
 */
export interface HookOutcome {
  event: HookEventName;
  scope: HookScope;
  source: string;
  handler: RegisteredHandler['type'];
  /** The command, the builtin's name, or the start of the prompt. */
  label: string;
  matcher?: string;
  result: 'allow' | 'deny' | 'ask' | 'noop' | 'error' | 'timeout' | 'async' | 'skipped';
  reason?: string;
  updatedInput?: ToolInputObject;
  additionalContext?: string;
  stopAgent?: { reason?: string };
  systemMessage?: string;
  exitCode?: number;
  /** `HOOK.TIMEOUT` / `HOOK.FAILED` for hooks that did not decide. */
  code?: string;
  durationMs: number;
}

export interface HookRunResult {
  event: HookEventName;
  /** Combined decision: any deny wins, then ask, then allow; `none` if no hook decided. */
  decision: 'allow' | 'deny' | 'ask' | 'none';
  /** The event's action must not happen: tool call denied, prompt blocked, or (Stop) the agent must keep working. */
  blocked: boolean;
  /** Why (from the highest-precedence hook with the winning decision): what the model sees. */
  reason?: string;
  /** Replacement tool input from the highest-precedence hook that gave one (never with a deny). */
  updatedInput?: ToolInputObject;
  additionalContext: string[];
  /** Deny/block reasons of non-blocking events (e.g. PostToolUse exit 2): shown to the model, nothing stopped. */
  feedback: string[];
  /** A hook asked to stop the agent altogether (`continue: false`). */
  stopAgent?: { reason?: string };
  outcomes: HookOutcome[];
}

/** The session a hook event belongs to (common input fields, env). */
export interface HookSession {
  sessionId: string;
  cwd: string;
  sessionType?: SessionType;
  transcriptPath?: string;
  agentId?: string;
  persona?: string;
  model?: string;
  /** Extra variables for command hooks (e.g. BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE, ENABLE_TOOL_SEARCH, MCP_TIMEOUT). */
  env?: Record<string, string>;
}

export interface HookEngineOptions {
  promptEvaluator?: PromptEvaluator;
  agentEvaluator?: AgentEvaluator;
  /** Tools handed to agent hooks; default the read-only workspace tools (Read, Glob, Grep). */
  agentHookTools?: readonly AnyToolDefinition[];
  /** Base environment of command hooks (scrubbed of secrets); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Variables that pass the secret scrub anyway (a notifier's webhook token, …). */
  keepEnv?: readonly string[];
  /** Enforce managed-only hooks regardless of managed settings. */
  allowManagedHooksOnly?: boolean;
  /** Called when an async hook finishes (log it / record it to OpenTelemetry). */
  onAsyncOutcome?: (outcome: HookOutcome) => void;
  /** Command hooks run inside this sandbox (the session's, like its Bash). */
  sandbox?: Sandbox;
}

const OWN_ENV = ['SESSION_ID', 'PROJECT_DIR', 'HOOK_EVENT', 'MODEL', 'TOOL_INPUT_FILE_PATH'] as const;

/** Outcomes in the shape of the orchestrator's `tool-called` event (`hooks: [{event, decision, reason}]`), at most 50. */
export function hookDecisions(outcomes: readonly HookOutcome[]): Array<{ event: string; decision: string; reason?: string }> {
  return outcomes.slice(0, 50).map((o) => ({
    event: o.event,
    decision: o.result,
    ...(o.reason !== undefined ? { reason: o.reason.length > 2000 ? `${o.reason.slice(0, 1999)}…` : o.reason } : {}),
  }));
}

const label = (h: RegisteredHandler): string =>
  h.type === 'command' ? h.command : h.type === 'builtin' ? h.name : h.prompt.length > 80 ? `${h.prompt.slice(0, 80)}…` : h.prompt;

interface CompiledRegistration extends HookRegistration {
  regex?: RegExp;
  order: number;
}

/**
 * The hook lifecycle engine (seed 003 Req 3, 19, 23, 27): registrations from every scope, matched
 * by event and matcher, run concurrently, combined by precedence into one HookRunResult.
 */
export class HookEngine {
  private readonly regs: CompiledRegistration[] = [];
  private readonly settingsEnv: Array<{ scope: HookScope; env: Record<string, string> }> = [];
  private managedOnly: boolean;
  private readonly pending = new Set<Promise<void>>();
  private order = 0;

  constructor(private readonly options: HookEngineOptions = {}) {
    this.managedOnly = options.allowManagedHooksOnly ?? false;
  }

  /** True when only managed hooks run (engine option, or `allowManagedHooksOnly` in managed settings). */
  get allowManagedHooksOnly(): boolean {
    return this.managedOnly;
  }

  /**
   * Adds the hooks of one settings object (validated; errors name the path). `asSubagent`: the
   * settings come from subagent frontmatter, so Stop hooks become SubagentStop hooks (Req 3.3).
   */
  addSettings(scope: HookScope, raw: unknown, opts: { source?: string; asSubagent?: boolean } = {}): HookSettings {
    const source = opts.source ?? scope;
    const settings = parseHookSettings(raw, source);
    if (scope === 'managed' && settings.allowManagedHooksOnly) this.managedOnly = true;
    if (settings.env) this.settingsEnv.push({ scope, env: settings.env });
    for (const event of HOOK_EVENTS) {
      for (const group of settings.hooks?.[event] ?? []) {
        const target: HookEventName = opts.asSubagent && event === 'Stop' ? 'SubagentStop' : event;
        for (const handler of group.hooks) this.add({ scope, source, event: target, matcher: group.matcher, handler });
      }
    }
    return settings;
  }

  /**
   * Adds a bare per-event hooks map, as agent-definition / skill frontmatter carries it
   * (`{ PostToolUse: [{ matcher, hooks: [...] }] }`).
   */
  addHooks(scope: HookScope, hooks: unknown, opts: { source?: string; asSubagent?: boolean } = {}): void {
    this.addSettings(scope, { hooks }, opts);
  }

  /** Adds every loaded settings file (see loadHookSettingsFiles). */
  addSettingsFiles(files: readonly HookSettingsFile[]): void {
    for (const f of files) this.addSettings(f.scope, f.settings, { source: f.source });
  }

  /** Registers one handler (built-ins, or hooks built in code). */
  add(reg: HookRegistration): void {
    let regex: RegExp | undefined;
    try {
      regex = compileMatcher(reg.matcher);
    } catch (e) {
      throw new HeadspaceError(ErrorCodes.hookConfigInvalid, `Invalid matcher ${JSON.stringify(reg.matcher)} in ${reg.source}: ${(e as Error).message}`, { field: 'matcher' });
    }
    this.regs.push({ ...reg, regex, order: this.order++ });
  }

  registrations(): readonly HookRegistration[] {
    return this.sorted();
  }

  private sorted(): CompiledRegistration[] {
    return [...this.regs].sort((a, b) => scopeRank(a.scope) - scopeRank(b.scope) || a.order - b.order);
  }

  /** Waits for the async hooks still running (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Builds the full input of an event: common fields (Req 3.10) plus the event's payload. */
  buildInput<E extends HookEventName>(event: E, payload: HookPayloads[E], session: HookSession): HookInput<E> {
    const common = {
      session_id: session.sessionId,
      hook_event_name: event,
      cwd: session.cwd,
      session_type: session.sessionType ?? 'headless',
      ...(session.transcriptPath !== undefined ? { transcript_path: session.transcriptPath } : {}),
      ...(session.agentId !== undefined ? { agent_id: session.agentId } : {}),
      ...(session.persona !== undefined ? { persona: session.persona } : {}),
      ...(session.model !== undefined ? { model: session.model } : {}),
    };
    return { ...common, ...payload } as HookInput<E>;
  }

  /** Environment of command hooks (Req 3.9): scrubbed base, settings env by precedence, session env, BRAINMASS_* variables. */
  hookEnv(input: HookInput, session: HookSession): Record<string, string> {
    const env = scrubEnv(this.options.env ?? process.env, this.options.keepEnv);
    Object.assign(env, this.declaredEnv(session));
    const toolInput = (input as { tool_input?: Record<string, unknown> }).tool_input;
    const filePath = toolInput?.file_path ?? toolInput?.path;
    // Ours to set, under Claude Code's CLAUDE_* names (CLAUDE_PROJECT_DIR), the seed's BRAINMASS_* names and our HEADSPACE_* names (stale values from the parent env are replaced).
    const own: Record<(typeof OWN_ENV)[number], string | undefined> = {
      SESSION_ID: session.sessionId,
      PROJECT_DIR: session.cwd,
      HOOK_EVENT: input.hook_event_name,
      MODEL: session.model,
      TOOL_INPUT_FILE_PATH: typeof filePath === 'string' ? filePath : undefined,
    };
    for (const name of OWN_ENV) {
      for (const prefix of ['CLAUDE_', 'BRAINMASS_', 'HEADSPACE_']) {
        if (own[name] === undefined) delete env[prefix + name];
        else env[prefix + name] = own[name];
      }
    }
    // Set by the operator under any of its names: give hooks all three (the orchestrator's order: ours, Claude Code's, the seed's).
    const pctNames = ['HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE', 'CLAUDE_AUTOCOMPACT_PCT_OVERRIDE', 'BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE'];
    const pct = pctNames.map((n) => env[n]).find((v) => v !== undefined);
    if (pct !== undefined) for (const n of pctNames) env[n] ??= pct;
    return env;
  }

  /**
   * The variables settings files declare for hooks (`env`, lower scopes first so higher ones win)
   * and the session's own: all of them cross into a sandbox, unlike the host environment.
   */
  declaredEnv(session: HookSession): Record<string, string> {
    const env: Record<string, string> = {};
    const layers = [...this.settingsEnv].sort((a, b) => scopeRank(b.scope) - scopeRank(a.scope));
    for (const layer of layers) if (!this.managedOnly || layer.scope === 'managed') Object.assign(env, layer.env);
    return Object.assign(env, session.env ?? {});
  }

  /** Fires `event`: runs every matching hook (async ones in the background) and combines their decisions. */
  async run<E extends HookEventName>(event: E, payload: HookPayloads[E], session: HookSession): Promise<HookRunResult> {
    const input = this.buildInput(event, payload, session);
    const target = matcherTarget(input);
    const matching = this.sorted().filter((r) => r.event === event && (!r.regex || target === undefined || r.regex.test(target)));
    const env = this.hookEnv(input, session);
    const declared = this.declaredEnv(session);
    const outcomes = await Promise.all(
      matching.map(async (reg): Promise<HookOutcome> => {
        const base = { event, scope: reg.scope, source: reg.source, handler: reg.handler.type, label: label(reg.handler), ...(reg.matcher !== undefined ? { matcher: reg.matcher } : {}) };
        if (this.managedOnly && reg.scope !== 'managed') return { ...base, result: 'skipped', reason: 'allowManagedHooksOnly: only managed hooks run', durationMs: 0 };
        if (reg.handler.async) {
          const started = Date.now();
          const p = this.execute(reg, input, env, declared)
            .then((run) => this.options.onAsyncOutcome?.(toOutcome(base, run, Date.now() - started)))
            .catch(() => undefined)
            .finally(() => this.pending.delete(p));
          this.pending.add(p);
          return { ...base, result: 'async', durationMs: 0 };
        }
        const started = Date.now();
        const run = await this.execute(reg, input, env, declared);
        return toOutcome(base, run, Date.now() - started);
      }),
    );
    return combine(event, outcomes);
  }

  private async execute(reg: HookRegistration, input: HookInput, env: Record<string, string>, declared: Record<string, string>): Promise<HandlerRun> {
    const h = reg.handler;
    switch (h.type) {
      case 'command':
        return runCommandHook(h, input, { cwd: input.cwd, env, timeoutMs: (h.timeout ?? DEFAULT_HOOK_TIMEOUT_S.command) * 1000, ...(this.options.sandbox ? { sandbox: this.options.sandbox, sandboxEnv: declared } : {}) });
      case 'prompt':
        return runPromptHook(h, input, this.options.promptEvaluator, (h.timeout ?? DEFAULT_HOOK_TIMEOUT_S.prompt) * 1000);
      case 'agent':
        return runAgentHook(h, input, this.options.agentEvaluator, this.options.agentHookTools ?? fileTools.filter((t) => t.readOnly), (h.timeout ?? DEFAULT_HOOK_TIMEOUT_S.agent) * 1000);
      case 'builtin': {
        const timeoutMs = (h.timeout ?? DEFAULT_HOOK_TIMEOUT_S.command) * 1000;
        try {
          const r = await withTimeout(timeoutMs, async (signal) => h.run(input, { env, signal, ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}) }));
          if ('timedOut' in r) return { status: 'timeout', reason: `built-in hook ${h.name} timed out after ${timeoutMs / 1000}s` };
          return { status: 'decided', ...r.value };
        } catch (e) {
          return { status: 'error', reason: `built-in hook ${h.name} failed: ${(e as Error).message}` };
        }
      }
    }
  }
}

function toOutcome(base: Omit<HookOutcome, 'result' | 'durationMs'>, run: HandlerRun, durationMs: number): HookOutcome {
  if (run.status === 'timeout') return { ...base, result: 'timeout', reason: run.reason, code: ErrorCodes.hookTimeout, durationMs };
  if (run.status === 'error') return { ...base, result: 'error', reason: run.reason, code: ErrorCodes.hookFailed, ...(run.exitCode !== undefined ? { exitCode: run.exitCode } : {}), durationMs };
  const o: HookOutcome = { ...base, result: run.verdict, durationMs };
  if (run.reason !== undefined) o.reason = run.reason;
  if (run.updatedInput !== undefined) o.updatedInput = run.updatedInput;
  if (run.additionalContext !== undefined) o.additionalContext = run.additionalContext;
  if (run.stopAgent !== undefined) o.stopAgent = run.stopAgent;
  if (run.systemMessage !== undefined) o.systemMessage = run.systemMessage;
  if (run.exitCode !== undefined) o.exitCode = run.exitCode;
  return o;
}

/** Outcomes are in precedence order, so "first" = highest-precedence scope. */
export function combine(event: HookEventName, outcomes: HookOutcome[]): HookRunResult {
  const deny = outcomes.find((o) => o.result === 'deny');
  const ask = outcomes.find((o) => o.result === 'ask');
  const allow = outcomes.find((o) => o.result === 'allow');
  const decision = deny ? 'deny' : ask ? 'ask' : allow ? 'allow' : 'none';
  const blocking = BLOCKING_EVENTS.has(event);
  const winner = deny ?? ask ?? allow;
  const result: HookRunResult = {
    event,
    decision,
    blocked: blocking && decision === 'deny',
    additionalContext: outcomes.flatMap((o) => (o.additionalContext !== undefined && o.result !== 'deny' ? [o.additionalContext] : [])),
    feedback: blocking ? [] : outcomes.flatMap((o) => (o.result === 'deny' && o.reason ? [o.reason] : [])),
    outcomes,
  };
  if (winner?.reason !== undefined) result.reason = winner.reason;
  if (decision !== 'deny') {
    const modifier = outcomes.find((o) => o.updatedInput !== undefined && (o.result === 'allow' || o.result === 'ask' || o.result === 'noop'));
    if (modifier) result.updatedInput = modifier.updatedInput;
  }
  const stop = outcomes.find((o) => o.stopAgent);
  if (stop?.stopAgent) result.stopAgent = stop.stopAgent;
  return result;
}
