import { copyFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { runShell } from '../tools/bash-tool';
import { resolveInWorkspace } from '../tools/paths';
import { splitShellCommand } from '../tools/permissions';
import type { HookEngine, BuiltinHookHandler } from './engine';
import type { HookInput } from './events';
import type { HookHandlerOutput } from './handlers';

/** A dangerous-command rule of the security guard (seed 003 Req 27.2). */
export interface GuardRule {
  id: string;
  description: string;
  /** Tested against the whole command line and each of its simple commands. */
  test(command: string, segments: string[]): boolean;
}

const RM_TARGETS = new Set(['/', '/*', '~', '~/', '~/*', '$HOME', '$HOME/', '$HOME/*', '${HOME}', '${HOME}/', '${HOME}/*', '/.', '/..', '.', './', '*', './*', '..', '../']);
const unquote = (t: string) => t.replace(/^(['"])(.*)\1$/, '$2');

function isRecursiveForceRm(segment: string): boolean {
  const tokens = segment.split(' ').map(unquote);
  let i = 0;
  while (i < tokens.length && (tokens[i] === 'sudo' || tokens[i] === 'command' || tokens[i] === 'exec' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(tokens[i]))) i++;
  if (tokens[i] !== 'rm' && tokens[i] !== '/bin/rm' && tokens[i] !== '/usr/bin/rm') return false;
  const args = tokens.slice(i + 1);
  let recursive = false;
  let noPreserveRoot = false;
  const targets: string[] = [];
  for (const a of args) {
    if (a === '--recursive') recursive = true;
    else if (a === '--no-preserve-root') noPreserveRoot = true;
    else if (/^-[A-Za-z]+$/.test(a)) {
      if (/[rR]/.test(a)) recursive = true;
    } else if (!a.startsWith('--')) targets.push(a);
  }
  if (!recursive) return false;
  return noPreserveRoot || targets.some((t) => RM_TARGETS.has(t) || /^\/+\*?$/.test(t) || /^~\/?\*?$/.test(t));
}

export const SECURITY_GUARD_RULES: readonly GuardRule[] = [
  {
    id: 'rm-rf-root',
    description: 'recursive delete of /, ~, $HOME or the whole working tree',
    test: (_cmd, segments) => segments.some(isRecursiveForceRm),
  },
  {
    id: 'sql-drop',
    description: 'DROP TABLE / DROP DATABASE / DROP SCHEMA',
    test: (cmd) => /\bdrop\s+(table|database|schema)\b/i.test(cmd),
  },
  {
    id: 'pipe-to-shell',
    description: 'downloading a script and piping it into a shell (curl … | bash, wget … | sh)',
    test: (cmd) =>
      /\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(\S*\/)?(ba|z|da|k|fi)?sh\b/.test(cmd) ||
      /\b(ba|z|da|k)?sh\b[^|;&]*<\(\s*(curl|wget)\b/.test(cmd) ||
      /\b(ba|z|da|k)?sh\s+-c\s+["']?\$\(\s*(curl|wget)\b/.test(cmd),
  },
  {
    id: 'chmod-777',
    description: 'chmod 777 (world-writable permissions)',
    test: (cmd) => /\bchmod\s+(-[A-Za-z]+\s+)*(0?777|a\+rwx|ugo\+rwx)\b/.test(cmd),
  },
  {
    id: 'git-force-push',
    description: 'git push --force / -f (rewrites shared history)',
    test: (_cmd, segments) =>
      segments.some((s) => /^(sudo\s+)?git\s+(-\S+\s+)*push\b/.test(s) && (/\s--force(?!-with-lease|-if-includes)\b/.test(s) || /\s-[A-Za-z]*f[A-Za-z]*\b/.test(s) || /\s\+\S+/.test(s))),
  },
];

/** Which guard rule (if any) a command line breaks. */
export function findDangerousCommand(command: string, rules: readonly GuardRule[] = SECURITY_GUARD_RULES): GuardRule | undefined {
  const { segments } = splitShellCommand(command);
  const flat = command.replace(/\s+/g, ' ');
  return rules.find((r) => r.test(flat, segments));
}

/** PreToolUse on Bash: denies dangerous commands with a structured reason (no shell needed). */
export function securityGuardHook(rules: readonly GuardRule[] = SECURITY_GUARD_RULES): BuiltinHookHandler {
  return {
    type: 'builtin',
    name: 'security-guard',
    timeout: 5,
    run(input: HookInput): HookHandlerOutput {
      const toolInput = (input as HookInput<'PreToolUse'>).tool_input;
      const command = typeof toolInput?.command === 'string' ? toolInput.command : '';
      const hit = findDangerousCommand(command, rules);
      if (!hit) return { verdict: 'noop' };
      return { verdict: 'deny', reason: `Blocked by the security guard (${hit.id}): ${hit.description} is not allowed. Find a safer way to do this.` };
    },
  };
}

export interface ContextBackupOptions {
  /** Where backups go, relative to the session cwd unless absolute. Default `.headspace/backups`. */
  backupDir?: string;
  now?: () => Date;
}

/**
 * PreCompact (Req 27.1 / 2.6 / 2.10): writes the context snapshot of the input (and a copy of the
 * transcript file, when there is one) to the backup dir before compaction destroys it.
 */
export function contextBackupHook(options: ContextBackupOptions = {}): BuiltinHookHandler {
  return {
    type: 'builtin',
    name: 'context-backup',
    timeout: 60,
    async run(input: HookInput): Promise<HookHandlerOutput> {
      const pre = input as HookInput<'PreCompact'>;
      const dir = path.resolve(input.cwd, options.backupDir ?? '.headspace/backups');
      await mkdir(dir, { recursive: true });
      const stamp = (options.now?.() ?? new Date()).toISOString().replace(/[:.]/g, '-');
      const base = `${safeName(input.session_id)}-${stamp}`;
      const file = path.join(dir, `${base}.json`);
      const snapshot = { session_id: input.session_id, trigger: pre.trigger, custom_instructions: pre.custom_instructions, saved_at: stamp, context: pre.context_snapshot ?? null, transcript_path: input.transcript_path ?? null };
      await writeFile(file, JSON.stringify(snapshot, null, 2), 'utf8');
      if (input.transcript_path && (await stat(input.transcript_path).then((s) => s.isFile(), () => false))) {
        await copyFile(input.transcript_path, path.join(dir, `${base}.transcript${path.extname(input.transcript_path) || '.jsonl'}`));
      }
      return { verdict: 'noop', systemMessage: `context backed up to ${file}` };
    },
  };
}

const safeName = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100) || 'session';

export interface FormatOnWriteOptions {
  /** The formatter and its arguments; the file path is appended (e.g. ['npx', 'prettier', '--write']). */
  command: readonly string[];
  timeoutSeconds?: number;
}

/**
 * PostToolUse on Write/Edit/MultiEdit (Req 27.3): runs the configured formatter on the file just
 * written, without a shell. A formatter that is not installed is skipped, not an error.
 */
export function formatOnWriteHook(options: FormatOnWriteOptions): BuiltinHookHandler {
  return {
    type: 'builtin',
    name: 'format-on-write',
    timeout: options.timeoutSeconds ?? 60,
    async run(input: HookInput, ctx): Promise<HookHandlerOutput> {
      const toolInput = (input as HookInput<'PostToolUse'>).tool_input;
      const file = typeof toolInput?.file_path === 'string' ? toolInput.file_path : undefined;
      if (!file || options.command.length === 0) return { verdict: 'noop' };
      const target = await resolveInWorkspace(input.cwd, file);
      const [cmd, ...args] = options.command;
      if (ctx.sandbox) {
        // The formatter reads the worktree's own config (plugins are code): it runs where the agent's Bash does.
        const quote = (a: string) => `'${a.replaceAll("'", `'\\''`)}'`;
        const run = await runShell([cmd, ...args, target.absolute].map(quote).join(' '), { cwd: input.cwd, env: ctx.env, timeoutMs: (options.timeoutSeconds ?? 60) * 1000, signal: ctx.signal, sandbox: ctx.sandbox });
        if (run.exitCode === 0) return { verdict: 'noop', systemMessage: `formatted ${target.relative}` };
        if (run.exitCode === 127) return { verdict: 'noop', systemMessage: `formatter ${cmd} not installed; skipped` };
        return { verdict: 'noop', additionalContext: `Formatter ${cmd} failed on ${target.relative}: ${run.stderr.trim() || `exit ${run.exitCode ?? run.signal}`}` };
      }
      return new Promise<HookHandlerOutput>((resolve) => {
        execFile(cmd, [...args, target.absolute], { cwd: input.cwd, env: ctx.env, signal: ctx.signal }, (err, _stdout, stderr) => {
          if (!err) return resolve({ verdict: 'noop', systemMessage: `formatted ${target.relative}` });
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return resolve({ verdict: 'noop', systemMessage: `formatter ${cmd} not installed; skipped` });
          resolve({ verdict: 'noop', additionalContext: `Formatter ${cmd} failed on ${target.relative}: ${String(stderr).trim() || err.message}` });
        });
      });
    },
  };
}

export interface BuiltinHookOptions {
  /** Security guard on Bash, as a managed hook (default true). */
  securityGuard?: boolean;
  /** Context backup on PreCompact (default true; false to disable). */
  contextBackup?: boolean | ContextBackupOptions;
  /** Format on Write/Edit/MultiEdit when a formatter is configured. */
  formatOnWrite?: FormatOnWriteOptions;
}

/** Registers the Req 27 patterns as managed hooks (so allowManagedHooksOnly keeps them). */
export function registerBuiltinHooks(engine: HookEngine, options: BuiltinHookOptions = {}): void {
  if (options.securityGuard !== false) engine.add({ scope: 'managed', source: 'builtin', event: 'PreToolUse', matcher: 'Bash', handler: securityGuardHook() });
  if (options.contextBackup !== false) {
    const opts = typeof options.contextBackup === 'object' ? options.contextBackup : {};
    engine.add({ scope: 'managed', source: 'builtin', event: 'PreCompact', handler: contextBackupHook(opts) });
  }
  if (options.formatOnWrite) engine.add({ scope: 'managed', source: 'builtin', event: 'PostToolUse', matcher: 'Write|Edit|MultiEdit', handler: formatOnWriteHook(options.formatOnWrite) });
}
