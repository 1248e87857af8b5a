import { spawn, type ChildProcess } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { z } from 'zod';
import { ErrorCodes, isSecretName } from '@headspace/contracts';
import { startSandboxed, type Sandbox } from '../sandbox/sandbox-spawn';
import { defineTool, type ToolResult } from './types';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** After SIGTERM to the group, SIGKILL follows this much later. */
const KILL_GRACE_MS = 2_000;
/** After the shell exits, wait this long for background children holding the pipes. */
const PIPE_DRAIN_MS = 500;

/**
 * Copies an environment without secrets: any variable whose name looks like a key, token,
 * password or credential (ANTHROPIC_API_KEY, DATABASE_URL, …). `keep` names survive anyway.
 */
export function scrubEnv(env: NodeJS.ProcessEnv, keep: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    // One list of secret names (libs/contracts redaction), shared with the recording's redaction.
    if (!keep.includes(k) && isSecretName(k)) continue;
    out[k] = v;
  }
  return out;
}

/** Keeps the head and the tail of a stream's output within a fixed budget. */
export class OutputCap {
  private head = '';
  private tail = '';
  private total = 0;
  constructor(private readonly max: number) {}
  push(chunk: string): void {
    this.total += chunk.length;
    const headRoom = Math.floor(this.max / 2) - this.head.length;
    if (headRoom > 0) {
      this.head += chunk.slice(0, headRoom);
      chunk = chunk.slice(headRoom);
    }
    if (chunk.length > 0) {
      this.tail += chunk;
      const tailMax = this.max - Math.floor(this.max / 2);
      if (this.tail.length > tailMax) this.tail = this.tail.slice(this.tail.length - tailMax);
    }
  }
  text(): string {
    const shown = this.head.length + this.tail.length;
    if (this.total <= shown) return this.head + this.tail;
    return `${this.head}\n[output truncated: ${this.total - shown} of ${this.total} characters omitted]\n${this.tail}`;
  }
}

export interface ShellRun {
  /** stdout and stderr merged in arrival order (capped). */
  output: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  pid: number | undefined;
}

export interface ShellOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputChars?: number;
  stdin?: string;
  signal?: AbortSignal;
  /** Called with the shell's pid once it started (its process group id too). */
  onSpawn?: (pid: number) => void;
  /**
   * Run inside this bubblewrap sandbox: `cwd` is its working directory inside, `env` is ignored
   * (the sandbox gets only its policy's allow-listed environment).
   */
  sandbox?: Sandbox;
}

/**
 * Runs `bash -c command` in its own process group; on timeout or abort the whole group gets
 * SIGTERM, then SIGKILL. stdout and stderr are merged into one capped output. In a sandbox the
 * group is bubblewrap's: when it dies, the kernel kills everything in the sandbox's PID namespace.
 */
export async function runShell(command: string, opts: ShellOptions): Promise<ShellRun> {
  if (!opts.sandbox) return spawnAndCollect('bash', ['-c', command], opts.cwd, opts.env, opts);
  const sandboxed = await startSandboxed({ ...opts.sandbox, policy: { ...opts.sandbox.policy, cwd: opts.cwd } }, ['/bin/bash', '-c', command], opts.timeoutMs);
  try {
    return await collect(sandboxed.child, opts);
  } finally {
    await sandboxed.cleanup();
  }
}

function spawnAndCollect(file: string, args: string[], cwd: string, env: Record<string, string>, opts: ShellOptions): Promise<ShellRun> {
  return collect(spawn(file, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] }), opts);
}

/** Feeds stdin, caps the output, enforces the time limit and abort on the child's process group. */
function collect(child: ChildProcess, opts: ShellOptions): Promise<ShellRun> {
  return new Promise((resolve, reject) => {
    const max = opts.maxOutputChars ?? BASH_MAX_OUTPUT_CHARS;
    const cap = new OutputCap(max);
    const out = new OutputCap(max);
    const err = new OutputCap(max);
    const [stdin, stdout, stderr] = [child.stdin!, child.stdout!, child.stderr!];
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        /* group already gone */
      }
    };
    const terminate = () => {
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, opts.timeoutMs);
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();

    stdout.setEncoding('utf8').on('data', (d: string) => {
      cap.push(d);
      out.push(d);
    });
    stderr.setEncoding('utf8').on('data', (d: string) => {
      cap.push(d);
      err.push(d);
    });
    stdin.on('error', () => undefined);
    stdin.end(opts.stdin ?? '');
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const finish = () => {
      if (settled || !exit) return;
      settled = true;
      clearTimeout(timer);
      if (timedOut || aborted) {
        // The shell is gone; make sure nothing of its group survives.
        killGroup('SIGKILL');
        if (killTimer) clearTimeout(killTimer);
      }
      opts.signal?.removeEventListener('abort', onAbort);
      stdout.destroy();
      stderr.destroy();
      resolve({ output: cap.text(), stdout: out.text(), stderr: err.text(), exitCode: exit.code, signal: exit.signal, timedOut, aborted, pid: child.pid });
    };
    child.on('error', (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Background children may hold the pipes open; do not wait for them forever.
      setTimeout(finish, PIPE_DRAIN_MS).unref();
    });
    child.on('close', () => finish());
  });
}

export interface BashToolOptions {
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  maxOutputChars?: number;
  /** Variables that pass the secret scrub anyway. */
  keepEnv?: readonly string[];
}

/** The Bash tool, with its limits. `bashTool` is the one with the defaults. */
export function createBashTool(options: BashToolOptions = {}) {
  const maxTimeout = options.maxTimeoutMs ?? BASH_MAX_TIMEOUT_MS;
  const defaultTimeout = Math.min(options.defaultTimeoutMs ?? BASH_DEFAULT_TIMEOUT_MS, maxTimeout);
  return defineTool({
    name: 'Bash',
    description: `Run a bash command in the workspace directory. Output (stdout and stderr) is capped; default time limit ${defaultTimeout / 1000}s, at most ${maxTimeout / 1000}s. Secrets are not in the environment.`,
    schema: z.strictObject({
      command: z.string().min(1).max(100_000).describe('The command line, run with bash -c in the workspace root.'),
      timeout: z.number().int().min(1).max(maxTimeout).optional().describe(`Time limit in milliseconds (default ${defaultTimeout}).`),
      description: z.string().max(500).optional().describe('What the command does, in a few words.'),
    }),
    async execute(input, ctx): Promise<ToolResult> {
      const timeoutMs = input.timeout ?? defaultTimeout;
      const run = await runShell(input.command, {
        cwd: await realpath(ctx.workspaceRoot),
        env: scrubEnv(ctx.env ?? process.env, options.keepEnv),
        timeoutMs,
        maxOutputChars: options.maxOutputChars,
        signal: ctx.signal,
        ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
      });
      // NUL (`cat` of a binary, /proc/*/environ) cannot be stored in PostgreSQL text/jsonb: it would fail the recording of the call.
      const output = run.output.length > 0 ? run.output.replace(/\n$/, '').replaceAll('\0', '\\0') : '(no output)';
      if (run.timedOut) {
        return { content: `${output}\nCommand timed out after ${timeoutMs} ms; its process group was killed.`, isError: true, code: ErrorCodes.toolTimeout };
      }
      if (run.aborted) return { content: `${output}\nCommand aborted; its process group was killed.`, isError: true, code: ErrorCodes.toolExecutionFailed };
      if (run.exitCode === 0) return { content: `${output}\nExit code: 0`, isError: false };
      const status = run.exitCode !== null ? `Exit code: ${run.exitCode}` : `Killed by signal ${run.signal}`;
      return { content: `${output}\n${status}`, isError: true, code: ErrorCodes.toolExecutionFailed };
    },
  });
}

export const bashTool = createBashTool();
