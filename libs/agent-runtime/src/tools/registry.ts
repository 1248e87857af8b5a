import type Anthropic from '@anthropic-ai/sdk';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { resolveInWorkspace } from './paths';
import { checkToolAllowed, checkToolDenied, decideWrites, lockMissingReason, parseToolRule, toolNameMatches, type OwnsPolicy } from './permissions';
import { fail, toAnthropicTool, type AnyToolDefinition, type ToolContext, type ToolResult, type ToolUseCall } from './types';

/** Asks the team's lock table whether `agentId` holds the lock on a workspace-relative path. */
export interface LockChecker {
  holdsLock(path: string, agentId: string): Promise<boolean>;
}

/**
 * Remembers completed tool calls by `tool_use` id, so a resumed session replays the recorded
 * result instead of repeating the side effect (a second Write, a second send_message).
 */
export interface ToolCallJournal {
  wasCompleted(toolUseId: string): Promise<ToolResult | undefined> | ToolResult | undefined;
  record(toolUseId: string, result: ToolResult): Promise<void> | void;
}

export class InMemoryToolCallJournal implements ToolCallJournal {
  private readonly results = new Map<string, ToolResult>();
  wasCompleted(toolUseId: string): ToolResult | undefined {
    return this.results.get(toolUseId);
  }
  record(toolUseId: string, result: ToolResult): void {
    this.results.set(toolUseId, result);
  }
  get size(): number {
    return this.results.size;
  }
}

/** The persona's limits, from its manifest entry. */
export interface ToolPermissionPolicy {
  /** Manifest `tools` allowlist; undefined = every registered tool. */
  tools?: readonly string[];
  /** Deny list (agent definition `disallowedTools`); wins over `tools` and applies to team tools too. */
  disallowedTools?: readonly string[];
  /** Manifest `owns` globs; undefined = the persona may write anywhere in the workspace. */
  owns?: readonly string[];
  /** Writes outside `owns`: refuse, allow only under a lock this agent holds (default), or allow. */
  ownsPolicy?: OwnsPolicy;
}

export interface ToolRegistryOptions {
  tools: readonly AnyToolDefinition[];
  policy?: ToolPermissionPolicy;
  lockChecker?: LockChecker;
  journal?: ToolCallJournal;
}

export type PreparedCall = { ok: true; def: AnyToolDefinition; input: unknown } | { ok: false; result: ToolResult };

/** How a dispatched call ended. */
export type DispatchStage = 'replayed' | 'invalid' | 'refused' | 'executed';

export interface DispatchResult {
  result: ToolResult;
  stage: DispatchStage;
  /** The parsed input that was executed (after any hook modification). */
  input?: unknown;
}

/** Turns a HeadspaceError thrown inside a tool into the result the model sees. */
export function errorToResult(e: unknown): ToolResult {
  if (e instanceof HeadspaceError) return fail(e.code, e.message);
  const message = e instanceof Error ? e.message : String(e);
  return fail(ErrorCodes.toolExecutionFailed, `Tool failed: ${message}`);
}

/** Formats zod issues as `path: message` lines for the model. */
export function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues.map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : '(input)'}: ${i.message}`).join('; ');
}

/**
 * The tools of one agent session: builds the API `tools` array and dispatches `tool_use` blocks
 * through input parsing, permission rules (path safety, allowlist, owns/locks), execute, journal.
 */
export class ToolRegistry {
  private readonly byName = new Map<string, AnyToolDefinition>();
  readonly policy: ToolPermissionPolicy;
  readonly journal?: ToolCallJournal;
  private readonly lockChecker?: LockChecker;

  constructor(options: ToolRegistryOptions) {
    for (const def of options.tools) {
      if (this.byName.has(def.name)) throw new HeadspaceError(ErrorCodes.configInvalid, `Tool "${def.name}" is registered twice.`);
      this.byName.set(def.name, def);
    }
    this.policy = options.policy ?? {};
    this.journal = options.journal;
    this.lockChecker = options.lockChecker;
  }

  get(name: string): AnyToolDefinition | undefined {
    return this.byName.get(name);
  }

  /** Tools this persona may use at all (by name): the ones offered to the model. */
  available(): AnyToolDefinition[] {
    const rules = this.policy.tools?.map(parseToolRule);
    const banned = (this.policy.disallowedTools ?? []).map(parseToolRule).filter((r) => r.specifier === undefined);
    return [...this.byName.values()].filter(
      (d) => !banned.some((r) => toolNameMatches(r.tool, d.name)) && (d.alwaysAllowed || !rules || rules.some((r) => toolNameMatches(r.tool, d.name))),
    );
  }

  /** The `tools` array of a Messages API request. */
  apiTools(): Anthropic.Tool[] {
    return this.available().map(toAnthropicTool);
  }

  /** Result of a call already completed in an earlier (crashed or resumed) run, if any. */
  async replay(toolUseId: string): Promise<ToolResult | undefined> {
    return this.journal ? await this.journal.wasCompleted(toolUseId) : undefined;
  }

  async record(toolUseId: string, result: ToolResult): Promise<void> {
    await this.journal?.record(toolUseId, result);
  }

  /** Finds the tool and parses the input; an unknown tool or bad input is an error result. */
  prepare(name: string, rawInput: unknown): PreparedCall {
    const def = this.byName.get(name);
    if (!def) {
      const known = this.available().map((d) => d.name).join(', ');
      return { ok: false, result: fail(ErrorCodes.toolUnknown, `Unknown tool "${name}". Available tools: ${known}.`) };
    }
    const parsed = def.schema.safeParse(rawInput);
    if (!parsed.success) {
      return { ok: false, result: fail(ErrorCodes.toolInputInvalid, `Invalid input for ${name}: ${describeIssues(parsed.error.issues)}`) };
    }
    return { ok: true, def, input: parsed.data };
  }

  /**
   * Permission rules for a parsed call: every path must stay inside the workspace, the call must
   * be on the allowlist, writes outside `owns` need a lock held by this agent (per policy).
   * Returns the refusal, or undefined when allowed.
   */
  async checkPermission(def: AnyToolDefinition, input: unknown, ctx: ToolContext): Promise<ToolResult | undefined> {
    const access = def.access?.(input) ?? {};
    const reads: string[] = [];
    const writes: string[] = [];
    try {
      for (const p of access.reads ?? []) reads.push((await resolveInWorkspace(ctx.workspaceRoot, p)).relative);
      for (const p of access.writes ?? []) writes.push((await resolveInWorkspace(ctx.workspaceRoot, p)).relative);
    } catch (e) {
      return errorToResult(e);
    }
    const command = def.name === 'Bash' ? (input as { command?: string }).command : undefined;
    const facts = { toolName: def.name, command, paths: [...reads, ...writes] };
    const denied = checkToolDenied(this.policy.disallowedTools, facts);
    if (!denied.allowed) return fail(denied.code, denied.reason);
    if (!def.alwaysAllowed) {
      const verdict = checkToolAllowed(this.policy.tools, facts);
      if (!verdict.allowed) return fail(verdict.code, verdict.reason);
    }
    if (writes.length === 0) return undefined;
    const decision = decideWrites(writes, this.policy.owns, this.policy.ownsPolicy ?? 'require-lock');
    if (decision.kind === 'refuse') return fail(decision.code, decision.reason);
    if (decision.kind === 'needs-lock') {
      for (const p of decision.paths) {
        const held = this.lockChecker ? await this.lockChecker.holdsLock(p, ctx.agentId) : false;
        if (!held) return fail(ErrorCodes.toolWriteOutsideOwns, lockMissingReason(p, this.policy.owns ?? []));
      }
    }
    return undefined;
  }

  /** Runs a permitted call; a thrown error becomes an error result. Does not touch the journal. */
  async execute(def: AnyToolDefinition, input: unknown, ctx: ToolContext): Promise<ToolResult> {
    try {
      return await def.execute(input, ctx);
    } catch (e) {
      return errorToResult(e);
    }
  }

  /** The whole path without hooks: replay, parse, permissions, execute, record. */
  async dispatch(call: ToolUseCall, ctx: Omit<ToolContext, 'toolUseId'>): Promise<DispatchResult> {
    const callCtx: ToolContext = { ...ctx, toolUseId: call.id };
    const replayed = await this.replay(call.id);
    if (replayed) return { result: replayed, stage: 'replayed' };
    const prepared = this.prepare(call.name, call.input);
    if (!prepared.ok) return { result: prepared.result, stage: 'invalid' };
    const refusal = await this.checkPermission(prepared.def, prepared.input, callCtx);
    if (refusal) return { result: refusal, stage: 'refused', input: prepared.input };
    const result = await this.execute(prepared.def, prepared.input, callCtx);
    await this.record(call.id, result);
    return { result, stage: 'executed', input: prepared.input };
  }
}

/**
 * The policy of a team-manifest member (`tools` allowlist and `owns` globs, as in
 * `resolvedMemberSchema` of @headspace/contracts). An empty `tools` list allows only team tools;
 * an empty `owns` list means every write is outside owns.
 */
export function policyFromManifestMember(member: { tools: readonly string[]; owns: readonly string[] }, ownsPolicy: OwnsPolicy = 'require-lock'): ToolPermissionPolicy {
  return { tools: [...member.tools], owns: [...member.owns], ownsPolicy };
}
