import picomatch from 'picomatch';
import { ErrorCodes } from '@headspace/contracts';
import { analyzeShellCommand, argvText, fullText, innerCommands, isHarmlessRedirect, isLauncher, type SimpleCommand } from './shell-command';

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

/**
 * Splits a shell command line into its simple commands, respecting quotes. A quick heuristic for
 * the security-guard hook; the permission rules use analyzeShellCommand (a real parse).
 */
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

const firstWord = (spec: string) => spec.trim().split(/\s+/)[0].replace(/:\*$/, '');

/**
 * Bash under `Bash(…)` rules, on a real parse of the line: every simple command (across `;`,
 * `&&`, `||`, `|`, `&`, newlines and subshells) must match a rule. A command that writes or reads
 * a file through a redirection (other than /dev/null and fd duplication), or sets variables
 * before its name, is matched with those parts included, so `git:*` does not cover
 * `git log > /outside` or `GIT_PAGER=… git log`; only a rule that spells them out does. A
 * launcher (`sh -c`, `eval`, `env`, `xargs` …) needs a rule naming it as its first word, a
 * command name the shell expands (`$x`, globs) is never matched, and a line the parser cannot
 * read is refused.
 */
function checkBashAllowed(rules: ToolRule[], command: string): Verdict {
  const allowedAs = rules.map((r) => r.raw).join(', ');
  const analysis = analyzeShellCommand(command);
  if (!analysis.ok) {
    return refuse(ErrorCodes.toolNotAllowed, `Refused: this command cannot be checked against this persona's Bash rules (${allowedAs}) because ${analysis.reason}.`);
  }
  for (const cmd of analysis.commands) {
    const why = whyNotAllowed(cmd, rules.map((r) => r.specifier as string));
    if (why !== undefined) return refuse(ErrorCodes.toolNotAllowed, `Refused: ${why}; this persona may only run ${allowedAs}.`);
  }
  return ALLOW;
}

function whyNotAllowed(cmd: SimpleCommand, specs: string[]): string | undefined {
  const shown = fullText(cmd);
  if (cmd.argv.length === 0) return `"${shown}" runs no command, only assignments or redirections`;
  if (cmd.dynamicName) return `the command name of "${shown}" is expanded by the shell, so what runs cannot be checked`;
  const fileRedirects = cmd.redirects.filter((r) => !isHarmlessRedirect(r));
  const plain = fileRedirects.length === 0 && cmd.assignments.length === 0;
  const text = plain ? argvText(cmd) : shown;
  const launcher = isLauncher(cmd);
  const matched = specs.some(
    (spec) => (!launcher || firstWord(spec) === cmd.argv[0]) && (fileRedirects.length === 0 || /[<>]/.test(spec)) && bashSpecifierMatches(spec, text),
  );
  if (matched) return undefined;
  if (launcher && specs.some((spec) => bashSpecifierMatches(spec, text))) return `"${shown}" runs other commands through "${cmd.argv[0]}", which no rule names`;
  if (fileRedirects.length > 0) return `"${shown}" redirects to a file (${fileRedirects.map((r) => `${r.fd ?? ''}${r.op} ${r.target}`).join(', ')})`;
  return `command "${shown}" is not allowed`;
}

function checkBashDenied(rule: ToolRule, spec: string, command: string): Verdict {
  const analysis = analyzeShellCommand(command);
  if (!analysis.ok) return refuse(ErrorCodes.toolNotAllowed, `Refused: this command cannot be checked against ${rule.raw} (disallowed for this agent) because ${analysis.reason}.`);
  for (const cmd of analysis.commands) {
    const inner = isLauncher(cmd) ? innerCommands(cmd) : [];
    if (inner === undefined) return refuse(ErrorCodes.toolNotAllowed, `Refused: what "${fullText(cmd)}" runs cannot be checked against ${rule.raw} (disallowed for this agent).`);
    const hit = [cmd, ...inner].find((c) => bashSpecifierMatches(spec, argvText(c)));
    if (hit !== undefined) return refuse(ErrorCodes.toolNotAllowed, `Refused: command "${argvText(hit)}" is disallowed for this agent (${rule.raw}).`);
  }
  return ALLOW;
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
 * `Bash(...)` specifiers must allow EVERY simple command of the parsed line (see
 * checkBashAllowed); a line the parser cannot read is only allowed by an unrestricted `Bash`
 * entry. Path specifiers (`Write(src/**)`) must match every path the call touches.
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

  if (call.command !== undefined) return checkBashAllowed(rules, call.command);

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
 * simple commands matches — including what a launcher (`sh -c`, `eval`, `xargs`, `timeout` …)
 * would run — or if the line cannot be parsed; a path specifier denies a call touching any
 * matching path.
 */
export function checkToolDenied(denylist: readonly string[] | undefined, call: ToolCallFacts): Verdict {
  for (const rule of (denylist ?? []).map(parseToolRule)) {
    if (!toolNameMatches(rule.tool, call.toolName)) continue;
    const spec = rule.specifier;
    if (spec === undefined) return refuse(ErrorCodes.toolNotAllowed, `Refused: tool "${call.toolName}" is disallowed for this agent (${rule.raw}).`);
    if (call.command !== undefined) {
      const verdict = checkBashDenied(rule, spec, call.command);
      if (!verdict.allowed) return verdict;
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
