import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Headspace's policy for one Claude Code session: what the generated settings file and the hook
 * bridge enforce. Owned paths are globs relative to `checkoutRoot`.
 */
export interface ClaudePolicy {
  /** Absolute path of the member's checkout: nothing outside it may be written. */
  checkoutRoot: string;
  /** Globs (relative to the checkout) the member may write, e.g. `src/domain/**`; empty = the whole checkout. */
  ownedPaths: readonly string[];
  /** Bash commands always denied (added to DEFAULT_DENIED_BASH): first word plus words that must all appear. */
  deniedBash?: readonly string[];
  /** Tool names the session may call; default: the spec's tools without their patterns. */
  allowedTools?: readonly string[];
  /** Command the settings run for every hook event; default: the bridge under this Node. */
  hookCommand?: string;
  /**
   * Turn on Claude Code's own bubblewrap sandbox for the commands its Bash tool runs (no network
   * but through its proxy, which allows no domain here; writes only in the checkout), with no
   * unsandboxed fallback. The CLI itself keeps the network of whatever runs it.
   */
  sandboxCommands?: boolean;
}

/**
 * Headspace's hook endpoint for one session: the CLI POSTs every hook event to `url` (its HTTP
 * hooks — no process starts per tool call) with `Authorization: Bearer <token>`. A call that fails
 * (endpoint down, refused, timed out) blocks what the event guards (`onFailure: block`): closed.
 */
export interface ClaudeHookEndpoint {
  url: string;
  /** Per session, random; in the settings file only (mode 0600), never in argv, events or logs. */
  token: string;
  /** The tool calls the endpoint denied so far (the policy's and the team hooks'). */
  denials(): ClaudeDenial[];
}

/** One stopped tool call: from the CLI's `permission_denials`, the hook bridge, or a tool the session does not have. */
export interface ClaudeDenial {
  source: 'permissions' | 'hook' | 'unavailable';
  toolName: string;
  toolUseId?: string;
  toolInput?: Record<string, unknown>;
  reason?: string;
  /** false for read-only tools: the agent could carry on without them. */
  blocking: boolean;
}

export const DEFAULT_DENIED_BASH = ['chmod 777', 'chmod -R 777', 'git push --force', 'git push -f', 'git push --force-with-lease'] as const;

const WRITE_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'];
const READ_ONLY_TOOLS = new Set(['Read', 'Grep', 'Glob', 'LS', 'WebFetch', 'WebSearch', 'TodoWrite', 'NotebookRead']);
const DELEGATION_TOOLS = ['Agent', 'Task'];

/** Events whose input the bridge forwards to the engine; PreToolUse alone when there is no engine. */
export const FORWARDED_HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'SessionStart', 'SessionEnd', 'PreCompact', 'Notification'] as const;

export const isBlockingDenial = (toolName: string): boolean => !READ_ONLY_TOOLS.has(toolName);

/** `Bash(git:*)` → `Bash`. */
export const toolBaseName = (tool: string): string => tool.replace(/\(.*\)$/s, '').trim();

export function sessionToolNames(tools: readonly string[]): string[] {
  return [...new Set(tools.map(toolBaseName).filter((t) => t !== ''))];
}

/** Path rule for the CLI: `//abs/path` is absolute in its permission syntax. */
function absoluteRule(tool: string, root: string, glob: string): string {
  return `${tool}(/${resolve(root, glob)})`;
}

export interface ClaudeSettingsInput {
  policy: ClaudePolicy;
  /** The spec's tools, patterns included (`Bash(git:*)`). */
  tools: readonly string[];
  /** The command each hook runs. */
  hookCommand: string;
  /** Forward every event (an engine is listening), else PreToolUse only. */
  forwardAllEvents: boolean;
  /** HTTP hooks to this endpoint instead of the command bridge. */
  endpoint?: Pick<ClaudeHookEndpoint, 'url' | 'token'>;
}

function hookHandler(input: ClaudeSettingsInput): Record<string, unknown> {
  if (!input.endpoint) return { type: 'command', command: input.hookCommand, timeout: 30 };
  return { type: 'http', url: input.endpoint.url, headers: { Authorization: `Bearer ${input.endpoint.token}` }, timeout: 30, onFailure: 'block' };
}

/**
 * The `--settings` object: writes allowed only inside the owned paths (`dontAsk` denies whatever no
 * rule allows, so writes elsewhere and outside the checkout are refused), denied commands and
 * delegation tools, and the hook bridge on the events it handles.
 */
export function buildClaudeSettings(input: ClaudeSettingsInput): Record<string, unknown> {
  const { policy } = input;
  const root = resolve(policy.checkoutRoot);
  const names = sessionToolNames(input.tools);
  const owned = policy.ownedPaths.length > 0 ? policy.ownedPaths : ['**'];
  const allow: string[] = [];
  for (const tool of input.tools) {
    const base = toolBaseName(tool);
    if (WRITE_TOOLS.includes(base)) {
      for (const glob of owned) allow.push(absoluteRule(base, root, glob));
    } else allow.push(tool);
  }
  const denied = [...new Set([...DEFAULT_DENIED_BASH, ...(policy.deniedBash ?? [])])];
  const deny = [
    ...denied.map((c) => `Bash(${c}:*)`),
    ...WRITE_TOOLS.filter((t) => names.includes(t)).map((t) => absoluteRule(t, root, '.git/**')),
    // Task is the CLI's older name of Agent: denying either removes both.
    ...(DELEGATION_TOOLS.some((t) => (policy.allowedTools ?? names).includes(t)) ? [] : DELEGATION_TOOLS),
  ];
  const events = input.forwardAllEvents || input.endpoint ? FORWARDED_HOOK_EVENTS : (['PreToolUse'] as const);
  const handler = hookHandler(input);
  const hooks = Object.fromEntries(events.map((e) => [e, [{ matcher: '*', hooks: [handler] }]]));
  const settings: Record<string, unknown> = { permissions: { allow: [...new Set(allow)], deny, defaultMode: 'dontAsk' }, hooks };
  if (policy.sandboxCommands) {
    settings.sandbox = { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, autoAllowBashIfSandboxed: false, network: { allowedDomains: [], allowLocalBinding: false } };
  }
  return settings;
}

/**
 * The shipped bridge script: `hook-bridge.mjs` beside this module in src; in the build output SWC
 * has compiled it to a CommonJS `hook-bridge.js` beside the compiled module.
 */
export function hookBridgePath(): string {
  const candidates = [join(__dirname, 'hook-bridge.mjs'), join(__dirname, 'hook-bridge.js'), join(process.cwd(), 'libs/agent-runtime/src/claude-code/hook-bridge.mjs')];
  return candidates.find((p) => existsSync(p)) ?? candidates[0];
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface SessionPolicyFiles {
  dir: string;
  settingsPath: string;
  policyPath: string;
  denialsPath: string;
  /** The bridge's denials so far. */
  readDenials(): Promise<ClaudeDenial[]>;
  cleanup(): Promise<void>;
}

/** Writes the settings, the bridge's policy and an empty denials log into a fresh temp dir. */
export async function writeSessionPolicy(policy: ClaudePolicy, tools: readonly string[], forwardAllEvents: boolean, endpoint?: ClaudeHookEndpoint): Promise<SessionPolicyFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'hs-claude-policy-'));
  const settingsPath = join(dir, 'settings.json');
  const policyPath = join(dir, 'policy.json');
  const denialsPath = join(dir, 'denials.jsonl');
  const names = sessionToolNames(tools);
  const bridgePolicy = {
    checkoutRoot: resolve(policy.checkoutRoot),
    ownedPaths: policy.ownedPaths,
    deniedBash: [...new Set([...DEFAULT_DENIED_BASH, ...(policy.deniedBash ?? [])])],
    allowedTools: policy.allowedTools ?? names,
    denialsPath,
  };
  const hookCommand = policy.hookCommand ?? `${quote(process.execPath)} ${quote(hookBridgePath())} ${quote(policyPath)}`;
  await writeFile(policyPath, JSON.stringify(bridgePolicy, null, 2));
  await writeFile(denialsPath, '');
  // mode 0600: with an endpoint the file holds the session's hook token
  await writeFile(settingsPath, JSON.stringify(buildClaudeSettings({ policy, tools, hookCommand, forwardAllEvents, endpoint }), null, 2), { mode: 0o600 });
  return {
    dir,
    settingsPath,
    policyPath,
    denialsPath,
    readDenials: () => readBridgeDenials(denialsPath),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export async function readBridgeDenials(path: string): Promise<ClaudeDenial[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const out: ClaudeDenial[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const d = JSON.parse(line) as { toolName?: unknown; toolUseId?: unknown; toolInput?: unknown; reason?: unknown };
      const toolName = typeof d.toolName === 'string' ? d.toolName : 'unknown';
      out.push({
        source: 'hook',
        toolName,
        toolUseId: typeof d.toolUseId === 'string' ? d.toolUseId : undefined,
        toolInput: d.toolInput && typeof d.toolInput === 'object' ? (d.toolInput as Record<string, unknown>) : undefined,
        reason: typeof d.reason === 'string' ? d.reason : undefined,
        blocking: isBlockingDenial(toolName),
      });
    } catch {
      // a torn line from a killed bridge
    }
  }
  return out;
}
