import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DEFAULT_DENIED_BASH, sessionToolNames, type ClaudePolicy } from './policy';

/**
 * The PreToolUse checks of a Claude Code session, in TypeScript for the orchestrator's hook
 * endpoint: the same rules as hook-bridge.mjs (which has no dependencies and runs without the
 * endpoint), so one place decides either way. Keep the two in step; both have specs.
 */
export interface ToolCallPolicy {
  checkoutRoot: string;
  ownedPaths: readonly string[];
  deniedBash: readonly string[];
  allowedTools: readonly string[];
}

const WRITE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
const ALWAYS_ALLOWED = new Set(['StructuredOutput']);
/** Task is the CLI's older name of Agent. */
const canonical = (tool: string) => (tool === 'Task' ? 'Agent' : tool);

export function toolCallPolicyOf(policy: ClaudePolicy, tools: readonly string[]): ToolCallPolicy {
  return {
    checkoutRoot: resolve(policy.checkoutRoot),
    ownedPaths: policy.ownedPaths,
    deniedBash: [...new Set([...DEFAULT_DENIED_BASH, ...(policy.deniedBash ?? [])])],
    allowedTools: policy.allowedTools ?? sessionToolNames(tools),
  };
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Resolves symlinks of the deepest existing ancestor, so a link cannot lead a write out. */
function realish(p: string): string {
  let head = p;
  const tail: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...tail);
    } catch {
      const parent = dirname(head);
      if (parent === head) return p;
      tail.unshift(basename(head));
      head = parent;
    }
  }
}

const words = (command: string) => command.trim().split(/\s+/).filter((t) => t !== '' && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(t));

/** A denied pattern matches a simple command that starts with its first word and has all its other words. */
function deniedCommand(command: string, patterns: readonly string[]): string | undefined {
  for (const part of command.split(/&&|\|\||[;|\n]|\$\(|`/)) {
    const w = words(part);
    if (w.length === 0) continue;
    const name = basename(w[0]);
    for (const pattern of patterns) {
      const p = words(pattern);
      if (p.length > 0 && p[0] === name && p.slice(1).every((x) => w.slice(1).includes(x))) return pattern;
    }
  }
  return undefined;
}

/** Why Headspace's policy stops this tool call, or undefined when it may go ahead. */
export function checkToolCall(policy: ToolCallPolicy, input: { tool_name?: unknown; tool_input?: unknown; cwd?: unknown }): string | undefined {
  const tool = String(input.tool_name ?? '');
  const toolInput = (input.tool_input && typeof input.tool_input === 'object' ? input.tool_input : {}) as Record<string, unknown>;
  if (!ALWAYS_ALLOWED.has(tool) && !policy.allowedTools.map(canonical).includes(canonical(tool))) {
    return `Headspace policy: the ${tool} tool is not allowed for this session`;
  }
  if (WRITE_TOOLS.has(tool)) {
    const target = toolInput.file_path ?? toolInput.notebook_path;
    if (typeof target !== 'string' || target === '') return undefined;
    const root = realish(resolve(policy.checkoutRoot));
    const cwd = typeof input.cwd === 'string' && input.cwd !== '' ? input.cwd : policy.checkoutRoot;
    const rel = relative(root, realish(resolve(cwd, target)));
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return `Headspace policy: ${target} is outside the checkout ${policy.checkoutRoot}`;
    const relPosix = rel.split(sep).join('/');
    if (policy.ownedPaths.length > 0 && !policy.ownedPaths.some((g) => globToRegExp(g).test(relPosix))) {
      return `Headspace policy: ${relPosix} is outside the owned paths (${policy.ownedPaths.join(', ')})`;
    }
  }
  if (tool === 'Bash' && typeof toolInput.command === 'string') {
    const hit = deniedCommand(toolInput.command, policy.deniedBash);
    if (hit) return `Headspace policy: "${hit}" commands are not allowed`;
  }
  return undefined;
}
