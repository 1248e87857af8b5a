import picomatch from 'picomatch';
import { ErrorCodes } from '@headspace/contracts';

/**
 * Permission rules, pure (no I/O): the persona's manifest `tools` allowlist and its `owns` globs.
 * Paths given here are already resolved, workspace-relative posix paths (see resolveInWorkspace).
 */

export type Verdict = { allowed: true } | { allowed: false; code: string; reason: string };

const ALLOW: Verdict = { allowed: true };
const refuse = (code: string, reason: string): Verdict => ({ allowed: false, code, reason });

/** A manifest tool entry: `Read`, `mcp__github__*`, `Bash(git:*)`, `Write(src/**)`. */
export interface ToolRule {
  raw: string;
  tool: string;
  specifier?: string;
}

export function parseToolRule(raw: string): ToolRule {
  const m = /^\s*([^()\s]+)\s*(?:\((.*)\)\s*)?$/s.exec(raw);
  if (!m) return { raw, tool: raw.trim() };
  const specifier = m[2]?.trim();
  return specifier ? { raw, tool: m[1], specifier } : { raw, tool: m[1] };
}

/** `*` in a rule's tool name matches any run of characters (`mcp__*`, `mcp__github__*`). */
export function toolNameMatches(ruleTool: string, toolName: string): boolean {
  if (!ruleTool.includes('*')) return ruleTool === toolName;
  const re = new RegExp(`^${ruleTool.split('*').map(escapeRegex).join('.*')}$`);
  return re.test(toolName);
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const normalizeCommand = (s: string) => s.trim().replace(/\s+/g, ' ');

/**
 * Does one simple command match a Bash specifier? `git:*` is a prefix rule (the command is `git`
 * or starts with `git `), `npm run *` a wildcard rule, anything else must match exactly.
 */
export function bashSpecifierMatches(specifier: string, command: string): boolean {
  const cmd = normalizeCommand(command);
  const spec = normalizeCommand(specifier);
  if (spec === '*') return true;
  if (spec.endsWith(':*')) {
    const prefix = spec.slice(0, -2).trim();
    return cmd === prefix || cmd.startsWith(prefix + ' ');
  }
  if (spec.includes('*')) return new RegExp(`^${spec.split('*').map(escapeRegex).join('.*')}$`, 's').test(cmd);
  return cmd === spec;
}

export interface SplitCommand {
  /** The simple commands joined by `;`, `&&`, `||`, `|`, `&` or newlines. */
  segments: string[];
  /** Command/process substitution (`$(…)`, backticks, `<(…)`) hides commands from the rules. */
  hasSubstitution: boolean;
}

/** Splits a shell command line into its simple commands, respecting quotes. */
export function splitShellCommand(command: string): SplitCommand {
  const segments: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let hasSubstitution = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    const next = command[i + 1];
    if (quote === "'") {
      if (c === "'") quote = null;
      current += c;
      continue;
    }
    if (c === '\\' && next !== undefined) {
      current += c + next;
      i++;
      continue;
    }
    if (c === '`' || (c === '$' && next === '(') || ((c === '<' || c === '>') && next === '(')) hasSubstitution = true;
    if (quote === '"') {
      if (c === '"') quote = null;
      current += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      current += c;
      continue;
    }
    const two = c + (next ?? '');
    if (two === '&&' || two === '||') {
      segments.push(current);
      current = '';
      i++;
      continue;
    }
    if (c === ';' || c === '|' || c === '\n' || (c === '&' && command[i - 1] !== '>' && next !== '>')) {
      segments.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  segments.push(current);
  return { segments: segments.map(normalizeCommand).filter((s) => s.length > 0), hasSubstitution };
}

/** Glob match of a workspace-relative posix path (dotfiles included). */
export function globMatches(glob: string, relPath: string): boolean {
  return picomatch(glob, { dot: true })(relPath);
}

export interface ToolCallFacts {
  toolName: string;
  /** Bash: the command line. */
  command?: string;
  /** Every path the call reads or writes, workspace-relative. */
  paths?: string[];
}

/**
 * Checks a call against the persona's `tools` allowlist (undefined = no restriction).
 * `Bash(...)` specifiers must allow EVERY simple command of the line, and a line with command
 * substitution is only allowed by an unrestricted `Bash` entry. Path specifiers
 * (`Write(src/**)`) must match every path the call touches.
 */
export function checkToolAllowed(allowlist: readonly string[] | undefined, call: ToolCallFacts): Verdict {
  if (allowlist === undefined) return ALLOW;
  const rules = allowlist.map(parseToolRule).filter((r) => toolNameMatches(r.tool, call.toolName));
  const listed = allowlist.length > 0 ? allowlist.join(', ') : '(none)';
  if (rules.length === 0) {
    return refuse(ErrorCodes.toolNotAllowed, `Refused: tool "${call.toolName}" is not in this persona's allowed tools (${listed}).`);
  }
  if (rules.some((r) => r.specifier === undefined)) return ALLOW;
  const specifiers = rules.map((r) => r.specifier as string);

  if (call.command !== undefined) {
    const { segments, hasSubstitution } = splitShellCommand(call.command);
    if (hasSubstitution) {
      return refuse(ErrorCodes.toolNotAllowed, `Refused: command substitution is not allowed by this persona's Bash rules (${rules.map((r) => r.raw).join(', ')}).`);
    }
    if (segments.length === 0) return refuse(ErrorCodes.toolNotAllowed, 'Refused: empty command.');
    const denied = segments.find((seg) => !specifiers.some((spec) => bashSpecifierMatches(spec, seg)));
    if (denied !== undefined) {
      return refuse(ErrorCodes.toolNotAllowed, `Refused: command "${denied}" is not allowed; this persona may only run ${rules.map((r) => r.raw).join(', ')}.`);
    }
    return ALLOW;
  }

  const paths = call.paths ?? [];
  if (paths.length === 0) {
    return refuse(ErrorCodes.toolNotAllowed, `Refused: "${call.toolName}" is only allowed as ${rules.map((r) => r.raw).join(', ')}.`);
  }
  const denied = paths.find((p) => !specifiers.some((spec) => globMatches(spec, p)));
  if (denied !== undefined) {
    return refuse(ErrorCodes.toolNotAllowed, `Refused: "${call.toolName}" on "${denied}" is not allowed; this persona may only use ${rules.map((r) => r.raw).join(', ')}.`);
  }
  return ALLOW;
}

/**
 * Checks a call against a deny list (agent definition `disallowedTools`), which wins over any
 * allowlist: a bare entry denies the tool, `Bash(npm publish:*)` denies a line if ANY of its
 * simple commands matches (or if command substitution could hide one), a path specifier denies a
 * call touching any matching path.
 */
export function checkToolDenied(denylist: readonly string[] | undefined, call: ToolCallFacts): Verdict {
  for (const rule of (denylist ?? []).map(parseToolRule)) {
    if (!toolNameMatches(rule.tool, call.toolName)) continue;
    const spec = rule.specifier;
    if (spec === undefined) return refuse(ErrorCodes.toolNotAllowed, `Refused: tool "${call.toolName}" is disallowed for this agent (${rule.raw}).`);
    if (call.command !== undefined) {
      const { segments, hasSubstitution } = splitShellCommand(call.command);
      if (hasSubstitution) return refuse(ErrorCodes.toolNotAllowed, `Refused: command substitution is not allowed while ${rule.raw} is disallowed.`);
      const hit = segments.find((seg) => bashSpecifierMatches(spec, seg));
      if (hit !== undefined) return refuse(ErrorCodes.toolNotAllowed, `Refused: command "${hit}" is disallowed for this agent (${rule.raw}).`);
    } else {
      const hit = (call.paths ?? []).find((p) => globMatches(spec, p));
      if (hit !== undefined) return refuse(ErrorCodes.toolNotAllowed, `Refused: "${call.toolName}" on "${hit}" is disallowed for this agent (${rule.raw}).`);
    }
  }
  return ALLOW;
}

/** What to do with a write outside the persona's `owns` globs. */
export type OwnsPolicy = 'refuse' | 'require-lock' | 'allow';
export const ownsPolicies: readonly OwnsPolicy[] = ['refuse', 'require-lock', 'allow'];

/** Paths no agent tool may write: hook settings (they run commands) and git internals. */
export const PROTECTED_WRITE_GLOBS: readonly string[] = ['.headspace/settings.json', '.headspace/settings.local.json', '.git', '.git/**'];

export type WriteDecision =
  | { kind: 'allow' }
  | { kind: 'refuse'; code: string; reason: string }
  /** These paths are outside `owns`; allowed only if this agent holds a lock on each. */
  | { kind: 'needs-lock'; paths: string[] };

/**
 * Decides the writes of a call: protected paths are always refused; paths inside `owns` (or no
 * `owns` at all) are allowed; the rest follow the owns policy.
 */
export function decideWrites(writes: readonly string[], owns: readonly string[] | undefined, policy: OwnsPolicy): WriteDecision {
  const protectedPath = writes.find((p) => PROTECTED_WRITE_GLOBS.some((g) => globMatches(g, p)));
  if (protectedPath !== undefined) {
    return { kind: 'refuse', code: ErrorCodes.toolNotAllowed, reason: `Refused: "${protectedPath}" is a protected path (hook settings and git internals cannot be written by tools).` };
  }
  if (owns === undefined || policy === 'allow') return { kind: 'allow' };
  const outside = writes.filter((p) => !owns.some((g) => globMatches(g, p)));
  if (outside.length === 0) return { kind: 'allow' };
  if (policy === 'refuse') {
    return {
      kind: 'refuse',
      code: ErrorCodes.toolWriteOutsideOwns,
      reason: `Refused: "${outside[0]}" is outside the files this persona owns (${owns.join(', ') || 'none'}). Ask the owner, or a lead, to change it.`,
    };
  }
  return { kind: 'needs-lock', paths: outside };
}

/** Message for a write outside `owns` without the lock that would allow it. */
export function lockMissingReason(relPath: string, owns: readonly string[]): string {
  return `Refused: "${relPath}" is outside the files this persona owns (${owns.join(', ') || 'none'}) and you do not hold its lock. Take the lock with lock_file first.`;
}
