import path from 'node:path';
import { parse, type ParseEntry } from 'shell-quote';

/**
 * A shell command line taken apart for the Bash permission rules (ADR 0014): shell-quote does
 * the tokenising (quotes, escapes, operators); this file adds the grammar on top and refuses,
 * rather than guesses at, every construct where shell-quote and bash could read the line
 * differently. Pure: no I/O.
 */

export interface Redirect {
  op: string;
  /** The file descriptor before the operator (`2` in `2>&1`), when written. */
  fd?: string;
  target: string;
}

export interface SimpleCommand {
  /** `NAME=value` words before the command name (they change what the command does). */
  assignments: string[];
  /** The command name and its arguments, quotes removed. */
  argv: string[];
  /** argv[0] is a glob or holds a `$` expansion: what runs is not known before it runs. */
  dynamicName: boolean;
  redirects: Redirect[];
}

export type ShellAnalysis = { ok: true; commands: SimpleCommand[] } | { ok: false; reason: string };

/** Constructs refused before tokenising: they run commands or hide text shell-quote cannot see. */
const REFUSED_TEXT: ReadonlyArray<[string, string]> = [
  ['`', 'command substitution (backticks)'],
  ['$(', 'command substitution $(…)'],
  ['<(', 'process substitution <(…)'],
  ['>(', 'process substitution >(…)'],
  ['$[', 'arithmetic expansion $[…]'],
  ['${', 'parameter expansion ${…}'],
  ["$'", "ANSI-C quoting $'…'"],
  ['$"', 'locale quoting $"…"'],
  ['<<', 'a here-document or here-string'],
  ['\0', 'a NUL character'],
];

const SEPARATORS = new Set([';', '&&', '||', '|', '|&', '&']);
const REDIRECTS = new Set(['>', '>>', '>|', '<', '<>', '>&', '<&', '&>', '&>>']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

const refuse = (reason: string): ShellAnalysis => ({ ok: false, reason });

/**
 * Splits a command line into its simple commands across `;`, `&&`, `||`, `|`, `&`, newlines and
 * `( … )` subshells, with each one's assignments, words and redirections. Anything this cannot
 * read with certainty (substitutions, here-docs, comments, unbalanced parentheses, a dangling
 * operator) is `{ ok: false }`: the caller denies it.
 */
export function analyzeShellCommand(command: string): ShellAnalysis {
  for (const [needle, what] of REFUSED_TEXT) if (command.includes(needle)) return refuse(`it contains ${what}`);
  // Bash ends a command at an unquoted newline; shell-quote reads it as a blank. As ` ; ` it
  // separates commands outside quotes and is harmless text inside them.
  const text = command.replace(/\n/g, ' ; ');
  let tokens: ParseEntry[];
  try {
    tokens = parse(text, (name) => `$${name}`);
  } catch (e) {
    return refuse(`it cannot be parsed (${(e as Error).message})`);
  }

  const commands: SimpleCommand[] = [];
  let current: SimpleCommand | undefined;
  let pendingRedirect: { op: string; fd?: string } | undefined;
  let depth = 0;
  let afterClose = false;
  let needsCommand = false;
  const start = () => (current ??= { assignments: [], argv: [], dynamicName: false, redirects: [] });
  const end = () => {
    if (current) commands.push(current);
    current = undefined;
  };

  for (const token of tokens) {
    if (pendingRedirect) {
      if (typeof token !== 'string') return refuse('a redirection has no plain target');
      start().redirects.push({ ...pendingRedirect, target: token });
      pendingRedirect = undefined;
      continue;
    }
    if (typeof token === 'string' || ('op' in token && token.op === 'glob')) {
      if (afterClose) return refuse('a word follows a closing parenthesis');
      const word = typeof token === 'string' ? token : (token as { pattern: string }).pattern;
      const cmd = start();
      needsCommand = false;
      if (cmd.argv.length === 0 && typeof token === 'string' && ASSIGNMENT.test(word)) {
        cmd.assignments.push(word);
        continue;
      }
      // Globs, `$x`, `~` and `{a,b}` in the name are expanded by bash: what runs is unknown here.
      if (cmd.argv.length === 0) cmd.dynamicName = typeof token !== 'string' || /[$*?[\]{}~]/.test(word);
      cmd.argv.push(word);
      continue;
    }
    if ('comment' in token) return refuse('it contains a comment (#), which shell-quote and bash do not always start at the same place');
    if (!('op' in token)) return refuse('it contains an unsupported token');
    const op = token.op;
    if (SEPARATORS.has(op)) {
      // A `;` with nothing before it is most often a newline after `&&`, `|`, `(` or another `;`.
      if (!current && !afterClose && op === ';') continue;
      if (!current && !afterClose) return refuse(`"${op}" has no command before it`);
      end();
      afterClose = false;
      needsCommand = op !== ';' && op !== '&';
      continue;
    }
    if (op === '(') {
      if (current || afterClose) return refuse('"(" appears inside a command (a function definition or substitution)');
      depth++;
      continue;
    }
    if (op === ')') {
      if (depth === 0) return refuse('")" has no matching "("');
      if (needsCommand) return refuse(`an operator before ")" has no command after it`);
      end();
      depth--;
      afterClose = true;
      continue;
    }
    if (REDIRECTS.has(op)) {
      if (afterClose) return refuse('a subshell is redirected');
      const cmd = start();
      const last = cmd.argv[cmd.argv.length - 1];
      // `2>x`: the digits are the fd only when written against the operator (`2 >x` passes "2").
      const fd = last !== undefined && /^\d+$/.test(last) && text.includes(`${last}${op}`) ? last : undefined;
      if (fd !== undefined) cmd.argv.pop();
      pendingRedirect = fd !== undefined ? { op, fd } : { op };
      continue;
    }
    return refuse(`it uses the "${op}" operator`);
  }
  if (pendingRedirect) return refuse('a redirection has no target');
  if (depth !== 0) return refuse('a "(" is never closed');
  if (needsCommand) return refuse('it ends with an operator that expects another command');
  end();
  if (commands.length === 0) return refuse('it is empty');
  return { ok: true, commands };
}

/** A redirection that touches no file: fd duplication/closing, or /dev/null. */
export function isHarmlessRedirect(r: Redirect): boolean {
  if ((r.op === '>&' || r.op === '<&') && /^(\d+|-)$/.test(r.target)) return true;
  return r.target === '/dev/null' && r.op !== '<>';
}

/**
 * Commands that run other commands from their arguments (or stdin): a rule for `git` must not
 * let `xargs git`, `env X=1 …`, `sh -c '…'` or `eval …` through.
 */
export const COMMAND_LAUNCHERS: ReadonlySet<string> = new Set([
  'sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'busybox',
  'eval', 'exec', 'env', 'command', 'builtin', 'source', '.', 'xargs', 'parallel',
  'nohup', 'nice', 'ionice', 'timeout', 'time', 'sudo', 'su', 'doas', 'setsid', 'stdbuf',
  'chroot', 'unshare', 'nsenter', 'watch', 'strace', 'ltrace', 'flock', 'script', 'trap',
]);

export function isLauncher(cmd: SimpleCommand): boolean {
  const name = cmd.argv[0];
  return name !== undefined && COMMAND_LAUNCHERS.has(path.posix.basename(name));
}

/** The words as the rules see them: `git log -n 3`. */
export const argvText = (cmd: SimpleCommand): string => cmd.argv.join(' ');

/** Everything that changes what runs or what it writes: assignments, words, file redirections. */
export function fullText(cmd: SimpleCommand): string {
  const redirects = cmd.redirects.filter((r) => !isHarmlessRedirect(r)).map((r) => `${r.fd ?? ''}${r.op} ${r.target}`);
  return [...cmd.assignments, ...cmd.argv, ...redirects].join(' ');
}

/**
 * What a launcher may run: the command line of `sh -c '…'` / `eval …`, analysed again, and every
 * tail of its arguments (`timeout 5 npm publish` → `npm publish`) — a superset, for deny rules.
 */
export function innerCommands(cmd: SimpleCommand, depth = 0): SimpleCommand[] | undefined {
  if (depth > 3) return undefined;
  const name = path.posix.basename(cmd.argv[0] ?? '');
  const scripts: string[] = [];
  if (name === 'eval') scripts.push(cmd.argv.slice(1).join(' '));
  const c = cmd.argv.findIndex((w, i) => i > 0 && /^-[A-Za-z]*c[A-Za-z]*$/.test(w));
  if (c > 0 && cmd.argv[c + 1] !== undefined) scripts.push(cmd.argv[c + 1]);
  const out: SimpleCommand[] = [];
  for (const script of scripts) {
    const inner = analyzeShellCommand(script);
    if (!inner.ok) return undefined;
    for (const ic of inner.commands) {
      out.push(ic);
      if (isLauncher(ic)) {
        const deeper = innerCommands(ic, depth + 1);
        if (!deeper) return undefined;
        out.push(...deeper);
      }
    }
  }
  for (let i = 1; i < cmd.argv.length; i++) out.push({ assignments: [], argv: cmd.argv.slice(i), dynamicName: false, redirects: [] });
  return out;
}
