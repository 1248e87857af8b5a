import { spawn } from 'node:child_process';
import { ErrorCodes, type AgentResult } from '@headspace/contracts';
import { prepareSandboxedSpawn, type Sandbox, type SandboxedSpawn } from '../sandbox/sandbox-spawn';
import { buildClaudeArgs, type ClaudeSpawnSpec } from './spawn-args';
import { parseClaudeStdout, toAgentResult, type ClaudeJsonResult } from './result';
import { changedPaths, gitStatus } from './git-changes';

export interface RunClaudeCodeOptions {
  spec: ClaudeSpawnSpec;
  /** Working directory: the member's checkout. */
  cwd: string;
  /** Executable; default `claude` found on PATH. */
  binary?: string;
  /** Added to the environment (e.g. ANTHROPIC_API_KEY, HEADSPACE_SESSION_ID). */
  env?: Record<string, string | undefined>;
  /**
   * true (default): the child inherits this process's environment plus `env`. false: it gets only
   * PATH, HOME, USER, LANG, TMPDIR and SHELL from here, plus `env` — keeps the orchestrator's own
   * secrets (database URL, tokens) out of the agent's reach.
   */
  inheritEnv?: boolean;
  /** Wall-clock limit; default 30 minutes. */
  timeoutMs?: number;
  /** After SIGTERM, how long before SIGKILL; default 5 s. */
  killGraceMs?: number;
  signal?: AbortSignal;
  /** Cap on captured stdout/stderr each; default 10 MB. */
  maxOutputBytes?: number;
  /**
   * Compare `git status` of `cwd` before and after the run and add the paths that changed to
   * filesModified (beside the reflection's files_changed). Default true; a non-git cwd is skipped.
   */
  trackGitChanges?: boolean;
  /**
   * Run the CLI inside this bubblewrap sandbox: its environment is the policy's plus `env` (the
   * key it needs is handed explicitly; nothing is inherited). The policy must mount the CLI's
   * install read-only and allow the network when the API is remote.
   */
  sandbox?: Sandbox;
}

export interface ClaudeCodeRun {
  result: AgentResult;
  /** The CLI's JSON, when it printed one. */
  raw?: ClaudeJsonResult;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  argv: string[];
}

const MINIMAL_ENV = ['PATH', 'HOME', 'USER', 'LANG', 'TMPDIR', 'SHELL'];

function baseEnv(inherit: boolean): NodeJS.ProcessEnv {
  if (inherit) return { ...process.env };
  return Object.fromEntries(MINIMAL_ENV.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
}

const emptyResult = (exitReason: AgentResult['exitReason'], code: string, message: string): AgentResult => ({
  summary: '',
  turnsUsed: 0,
  tokensConsumed: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  toolsUsed: [],
  filesModified: [],
  exitReason,
  error: { code, message },
});

/**
 * Spawn `claude` per seed 001 (argv from buildClaudeArgs, stdin closed so `-p` does not wait for
 * piped input), in its own process group so a timeout or cancel kills the CLI and its children
 * (SIGTERM, then SIGKILL after the grace period). Never throws: failures are AgentResults with
 * exitReason `error` (spawn failure, non-zero exit, timeout, unreadable output) or `cancelled`.
 */
export async function runClaudeCode(opts: RunClaudeCodeOptions): Promise<ClaudeCodeRun> {
  const track = opts.trackGitChanges ?? true;
  const before = track ? await gitStatus(opts.cwd) : undefined;
  const sandboxed = opts.sandbox ? await sandboxedClaude(opts, opts.sandbox) : undefined;
  const run = await spawnClaude(opts, sandboxed).finally(() => sandboxed?.cleanup());
  if (before) {
    const after = await gitStatus(opts.cwd);
    if (after) {
      const files = new Set([...run.result.filesModified, ...changedPaths(before, after)]);
      run.result.filesModified = [...files];
    }
  }
  return run;
}

function sandboxedClaude(opts: RunClaudeCodeOptions, sandbox: Sandbox): Promise<SandboxedSpawn> {
  const env = Object.fromEntries(Object.entries(opts.env ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
  const policy = { ...sandbox.policy, cwd: opts.cwd, env: { ...sandbox.policy.env, ...env } };
  return prepareSandboxedSpawn({ ...sandbox, policy }, [opts.binary ?? 'claude', ...buildClaudeArgs(opts.spec)], opts.timeoutMs ?? 30 * 60_000);
}

function spawnClaude(opts: RunClaudeCodeOptions, sandboxed?: SandboxedSpawn): Promise<ClaudeCodeRun> {
  const argv = buildClaudeArgs(opts.spec);
  const max = opts.maxOutputBytes ?? 10 * 1024 * 1024;
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const child = sandboxed
      ? spawn(sandboxed.file, sandboxed.args, { cwd: '/', env: sandboxed.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(opts.binary ?? 'claude', argv, {
          cwd: opts.cwd,
          env: { ...baseEnv(opts.inheritEnv ?? true), ...opts.env },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: process.platform !== 'win32',
        });
    const killTree = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        // the whole group: the CLI and whatever it started (the group outlives a dead leader)
        if (process.platform !== 'win32') process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // group already gone
      }
    };
    const stop = () => {
      killTree('SIGTERM');
      killTimer = setTimeout(() => killTree('SIGKILL'), opts.killGraceMs ?? 5_000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs ?? 30 * 60_000);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < max) stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < max) stderr += d;
    });
    const finish = (run: Omit<ClaudeCodeRun, 'argv' | 'stderr'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ ...run, stderr, argv });
    };
    child.on('error', (err) => {
      finish({ result: emptyResult('error', ErrorCodes.claudeCodeSpawnFailed, `could not start ${opts.binary ?? 'claude'}: ${err.message}`), exitCode: null, signal: null });
    });
    child.on('close', (exitCode, signal) => {
      if (timedOut) {
        killTree('SIGKILL');
        return finish({ result: emptyResult('error', ErrorCodes.claudeCodeTimeout, `claude did not finish within ${opts.timeoutMs ?? 30 * 60_000} ms`), exitCode, signal });
      }
      if (cancelled) {
        killTree('SIGKILL');
        return finish({ result: emptyResult('cancelled', ErrorCodes.claudeCodeFailed, 'cancelled'), exitCode, signal });
      }
      const raw = parseClaudeStdout(stdout);
      if (raw) {
        const result = toAgentResult(raw);
        if (exitCode !== 0 && result.exitReason === 'completed') {
          result.exitReason = 'error';
          result.error = { code: ErrorCodes.claudeCodeFailed, message: `claude exited with code ${exitCode}` };
        }
        return finish({ result, raw, exitCode, signal });
      }
      if (exitCode !== 0) {
        const tail = stderr.trim().slice(-2_000);
        return finish({ result: emptyResult('error', ErrorCodes.claudeCodeFailed, `claude exited with ${exitCode ?? signal}${tail ? `: ${tail}` : ''}`), exitCode, signal });
      }
      finish({ result: emptyResult('error', ErrorCodes.claudeCodeOutputInvalid, `claude printed no JSON result: ${stdout.slice(0, 500)}`), exitCode, signal });
    });
  });
}
