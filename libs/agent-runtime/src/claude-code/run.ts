import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, relative, resolve } from 'node:path';
import { ErrorCodes, type AgentResult } from '@headspace/contracts';
import { SIMULATED_LABEL } from '@headspace/llm';
import { prepareSandboxedSpawn, type Sandbox, type SandboxedSpawn } from '../sandbox/sandbox-spawn';
import { buildClaudeArgs, type ClaudeSpawnSpec } from './spawn-args';
import { parseClaudeResult, parseClaudeStdout, reflectionOf, permissionDenials, pickMainResult, resultTokens, toAgentResult, type ClaudeJsonResult } from './result';
import { changedSince, gitSnapshot } from './git-changes';
import { bridgeLoopbackPorts, loopbackPort, sandboxForwarderPath } from './loopback-bridge';
import { assistantTexts, parseStreamLine, streamSessionId, toolErrors, toolUseBlocks, type ClaudeStreamMessage } from './stream';
import { hookBridgePath, isBlockingDenial, writeSessionPolicy, type ClaudeDenial, type ClaudeHookEndpoint, type SessionPolicyFiles } from './policy';

export interface RunClaudeCodeOptions {
  spec: ClaudeSpawnSpec;
  /** Working directory: the member's checkout. */
  cwd: string;
  /** Executable; default `claude` found on PATH. */
  binary?: string;
  /** Added to the environment (e.g. ANTHROPIC_API_KEY, HEADSPACE_SESSION_ID, HEADSPACE_HOOK_URL). */
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
  /** Cap on the stream messages kept in ClaudeCodeRun.messages (results always kept); default 5,000. */
  maxMessages?: number;
  /**
   * filesModified from git: changes of `cwd` between before and after the run, committed or not.
   * Default true; a non-git cwd falls back to the reflection's files_changed minus denied writes.
   */
  trackGitChanges?: boolean;
  /**
   * Run the CLI inside this bubblewrap sandbox: its environment is the policy's plus `env` (the
   * key it needs is handed explicitly; nothing is inherited). The policy must mount the CLI's
   * install read-only and its HOME writable. Without the policy's network, a model API and hook
   * endpoint on this host's loopback are forwarded in alone; a model API elsewhere makes the CLI
   * share the host's network (`onWarning` says so).
   */
  sandbox?: Sandbox;
  /**
   * Headspace's hook endpoint: every hook event goes to it over HTTP (no bridge process per tool
   * call), failing closed; its denials join the run's.
   */
  hookEndpoint?: ClaudeHookEndpoint;
  /** Called for each stream-json line of stdout, in order. */
  onMessage?: (m: ClaudeStreamMessage) => void;
  /** Told when the sandbox had to share the host's network with the CLI (a model API not on this host's loopback). */
  onWarning?: (message: string) => void;
}

export interface ClaudeCodeRun {
  result: AgentResult;
  /** The main `result` object the CLI printed, when it printed one. */
  raw?: ClaudeJsonResult;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  argv: string[];
  /** The stream-json messages, in order (capped; `result` lines always kept). */
  messages: ClaudeStreamMessage[];
  /** Tool calls that were stopped: by permissions, the hook bridge, or a tool the session lacks. */
  denials: ClaudeDenial[];
  /** The model answered with the simulator's label: cost and tokens are simulated, not billed. */
  simulated: boolean;
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

/** What the process left: its exit, its stream and the outcome when it did not finish by itself. */
interface SpawnOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  messages: ClaudeStreamMessage[];
  results: ClaudeJsonResult[];
  failure?: AgentResult;
}

/**
 * Spawn `claude` per seed 001 (argv from buildClaudeArgs; a new session gets a fresh `--session-id`
 * unless resuming), with the policy's generated settings and hook bridge, in its own process group
 * so a timeout or cancel kills the CLI and its children. Never throws: failures are AgentResults
 * with exitReason `error` or `cancelled`.
 */
export async function runClaudeCode(opts: RunClaudeCodeOptions): Promise<ClaudeCodeRun> {
  const spec: ClaudeSpawnSpec = opts.spec.resume ? opts.spec : { ...opts.spec, sessionId: opts.spec.sessionId ?? randomUUID() };
  const hookUrl = opts.env?.HEADSPACE_HOOK_URL ?? ((opts.inheritEnv ?? true) ? process.env.HEADSPACE_HOOK_URL : undefined);
  const policy = spec.policy ? await writeSessionPolicy(spec.policy, spec.tools, Boolean(hookUrl), opts.hookEndpoint) : undefined;
  const argv = buildClaudeArgs(spec, { settingsPath: policy?.settingsPath });
  try {
    const track = opts.trackGitChanges ?? true;
    const before = track ? await gitSnapshot(opts.cwd) : undefined;
    let sandboxed: SandboxedSpawn | undefined;
    try {
      sandboxed = opts.sandbox ? await sandboxedClaude(opts, opts.sandbox, argv, policy) : undefined;
    } catch (error) {
      return { result: emptyResult('error', ErrorCodes.claudeCodeSpawnFailed, (error as Error).message), exitCode: null, signal: null, stderr: '', argv, messages: [], denials: [], simulated: false };
    }
    const outcome = await spawnClaude(opts, argv, sandboxed).finally(() => sandboxed?.cleanup());
    const files = before ? await changedSince(opts.cwd, before) : undefined;
    return await settle(opts, spec, argv, outcome, policy, files);
  } finally {
    await policy?.cleanup();
  }
}

async function settle(
  opts: RunClaudeCodeOptions,
  spec: ClaudeSpawnSpec,
  argv: string[],
  outcome: SpawnOutcome,
  policy: SessionPolicyFiles | undefined,
  files: string[] | undefined,
): Promise<ClaudeCodeRun> {
  const { messages, results, exitCode, signal, stderr } = outcome;
  const hooked = [...(policy ? await policy.readDenials() : []), ...(opts.hookEndpoint?.denials() ?? [])];
  const denials = mergeDenials([...hooked, ...results.flatMap(permissionDenials), ...unavailableToolCalls(messages)], messages);
  const simulated = [...assistantTexts(messages), ...results.map((r) => r.result ?? '')].some((t) => t.startsWith(SIMULATED_LABEL));
  const base = { exitCode, signal, stderr, argv, messages, denials, simulated };
  if (outcome.failure) return { ...base, result: outcome.failure };
  const sessionId = streamSessionId(messages) ?? spec.resume ?? spec.sessionId;
  const raw = pickMainResult(results, sessionId) ?? parseClaudeStdout(outcome.stdout);
  if (!raw) {
    if (exitCode !== 0) {
      const tail = stderr.trim().slice(-2_000);
      return { ...base, result: emptyResult('error', ErrorCodes.claudeCodeFailed, `claude exited with ${exitCode ?? signal}${tail ? `: ${tail}` : ''}`) };
    }
    return { ...base, result: emptyResult('error', ErrorCodes.claudeCodeOutputInvalid, `claude printed no result: ${outcome.stdout.slice(0, 500)}`) };
  }
  // The last result carries the process's cumulative cost and per-model usage (subagents too).
  const last = results.at(-1) ?? raw;
  const result = toAgentResult(raw, {
    tokens: resultTokens(last),
    turns: results.length > 1 ? results.reduce((n, r) => n + r.num_turns, 0) : raw.num_turns,
    costUsd: last.total_cost_usd ?? raw.total_cost_usd,
    toolsUsed: toolsUsed(messages, denials),
    denials,
    filesModified: files ?? reflectedFiles(raw, denials, opts.cwd),
    sessionId,
  });
  if (exitCode !== 0 && result.exitReason === 'completed') {
    result.exitReason = 'error';
    result.error = { code: ErrorCodes.claudeCodeFailed, message: `claude exited with code ${exitCode}` };
  }
  return { ...base, result, raw };
}

/** Names of the tools the agent called and that ran (the reflection's StructuredOutput excluded). */
function toolsUsed(messages: readonly ClaudeStreamMessage[], denials: readonly ClaudeDenial[]): string[] {
  const stopped = new Set(denials.map((d) => d.toolUseId).filter(Boolean));
  const names = toolUseBlocks(messages)
    .filter((b) => b.name !== 'StructuredOutput' && !(b.id && stopped.has(b.id)))
    .map((b) => b.name);
  return [...new Set(names)];
}

/** Calls of a tool the session was not given: the CLI answers "No such tool available". */
function unavailableToolCalls(messages: readonly ClaudeStreamMessage[]): ClaudeDenial[] {
  const errors = toolErrors(messages);
  return toolUseBlocks(messages).flatMap((b) => {
    const text = b.id ? errors.get(b.id) : undefined;
    if (text === undefined || !/No such tool available/i.test(text)) return [];
    return [{ source: 'unavailable' as const, toolName: b.name, toolUseId: b.id, toolInput: b.input, reason: text.replace(/<\/?tool_use_error>/g, '').trim(), blocking: isBlockingDenial(b.name) }];
  });
}

/** One entry per tool call, the bridge's (it has the reason) over the CLI's record of it, in call order. */
function mergeDenials(all: ClaudeDenial[], messages: readonly ClaudeStreamMessage[]): ClaudeDenial[] {
  const seen = new Set<string>();
  const unique = all.filter((d) => {
    if (d.toolUseId === undefined) return true;
    if (seen.has(d.toolUseId)) return false;
    seen.add(d.toolUseId);
    return true;
  });
  const order = new Map(toolUseBlocks(messages).map((b, i) => [b.id, i]));
  const at = (d: ClaudeDenial) => order.get(d.toolUseId) ?? Number.MAX_SAFE_INTEGER;
  return unique.map((d, i) => ({ d, i })).sort((a, b) => at(a.d) - at(b.d) || a.i - b.i).map((x) => x.d);
}

/** Without git: the reflection's files_changed, minus the writes that were denied. */
function reflectedFiles(raw: ClaudeJsonResult, denials: readonly ClaudeDenial[], cwd: string): string[] {
  const rel = (p: string) => relative(resolve(cwd), resolve(cwd, p));
  const denied = new Set(
    denials.map((d) => d.toolInput?.file_path ?? d.toolInput?.notebook_path).filter((p): p is string => typeof p === 'string').map(rel),
  );
  return (reflectionOf(raw)?.task_result.files_changed ?? []).filter((f) => !denied.has(rel(f)));
}

/**
 * The CLI in the session's bubblewrap sandbox: the worktree, the CLI's install (read-only, the
 * caller's policy) and its home; the hook bridge and this Node read-only, the session's policy dir
 * writable (its denials log). Without the team's network the sandbox has only loopback: the model
 * API and the hook endpoint are forwarded into it on their own ports (loopback-bridge.ts), nothing
 * else of the host is reachable — by the CLI or the commands its Bash runs.
 */
async function sandboxedClaude(opts: RunClaudeCodeOptions, sandbox: Sandbox, argv: string[], files?: SessionPolicyFiles): Promise<SandboxedSpawn> {
  const env = Object.fromEntries(Object.entries(opts.env ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
  const command = [opts.binary ?? 'claude', ...argv];
  const remoteApi = sandbox.policy.network ? undefined : remoteModelApi(opts);
  if (remoteApi) {
    opts.onWarning?.(
      `the model API ${remoteApi} is not on this host's loopback and the team's sandbox has no network: the CLI runs with the host's network (its Bash can reach it too); the rest of the sandbox holds`,
    );
  }
  const network = sandbox.policy.network || remoteApi !== undefined;
  const ports = network ? [] : forwardedPorts(opts);
  const bridge = ports.length > 0 ? await bridgeLoopbackPorts(ports) : undefined;
  const policy = {
    ...sandbox.policy,
    network,
    cwd: opts.cwd,
    env: { ...sandbox.policy.env, ...env },
    readOnlyPaths: [
      ...new Set([
        ...(sandbox.policy.readOnlyPaths ?? []),
        ...(files || bridge ? [dirname(dirname(process.execPath))] : []),
        ...(files ? [dirname(hookBridgePath())] : []),
        ...(bridge ? [bridge.dir, dirname(sandboxForwarderPath())] : []),
      ]),
    ],
    writablePaths: [...(sandbox.policy.writablePaths ?? []), ...(files ? [files.dir] : [])],
  };
  const inner = bridge ? [process.execPath, sandboxForwarderPath(), JSON.stringify(bridge.ports), '--', ...command] : command;
  try {
    const spawned = await prepareSandboxedSpawn({ ...sandbox, policy }, inner, opts.timeoutMs ?? 30 * 60_000);
    return { ...spawned, cleanup: async () => Promise.all([spawned.cleanup(), bridge?.close()]).then(() => undefined) };
  } catch (error) {
    await bridge?.close();
    throw error;
  }
}

/**
 * A model API that cannot be forwarded into a loopback-only sandbox by port (the real API, or any
 * host but this one's loopback). Refusing such a session would make the default sandbox settings
 * unusable with a real model; the CLI gets the host's network instead (a narrower answer is a
 * CONNECT proxy limited to the API's host, not built: ADR 0034).
 */
function remoteModelApi(opts: RunClaudeCodeOptions): string | undefined {
  const url = opts.env?.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com';
  return loopbackPort(url) === undefined ? url : undefined;
}

/** The ports a loopback-only sandbox needs: the model API's and the hook endpoint's, when given (on this host's loopback, or refused). */
function forwardedPorts(opts: RunClaudeCodeOptions): number[] {
  const ports: number[] = [];
  for (const [what, url] of [
    ['model API', opts.env?.ANTHROPIC_BASE_URL],
    ['hook endpoint', opts.hookEndpoint?.url ?? opts.env?.HEADSPACE_HOOK_URL],
  ] as const) {
    if (url === undefined) continue;
    const port = loopbackPort(url);
    if (port === undefined) {
      throw new Error(`the sandbox has no network (the team's sandbox settings) and the ${what} ${url} is not on this host's loopback: allow the team network, or serve it through a local proxy`);
    }
    ports.push(port);
  }
  return ports;
}

function spawnClaude(opts: RunClaudeCodeOptions, argv: string[], sandboxed?: SandboxedSpawn): Promise<SpawnOutcome> {
  const max = opts.maxOutputBytes ?? 10 * 1024 * 1024;
  const maxMessages = opts.maxMessages ?? 5_000;
  return new Promise((resolveRun) => {
    let stdout = '';
    let pending = '';
    let stderr = '';
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const messages: ClaudeStreamMessage[] = [];
    const results: ClaudeJsonResult[] = [];
    const child = sandboxed
      ? spawn(sandboxed.file, sandboxed.args, { cwd: '/', env: sandboxed.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(opts.binary ?? 'claude', argv, {
          cwd: opts.cwd,
          env: { ...baseEnv(opts.inheritEnv ?? true), ...opts.env },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: process.platform !== 'win32',
        });
    const onLine = (line: string) => {
      const m = parseStreamLine(line);
      if (!m) return;
      if (m.type === 'result') {
        const r = parseClaudeResult(m);
        if (r) results.push(r);
      }
      if (messages.length < maxMessages || m.type === 'result') messages.push(m);
      try {
        opts.onMessage?.(m);
      } catch {
        // a failing observer must not lose the run
      }
    };
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
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < max) stderr += d;
    });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, failure?: AgentResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (pending !== '') onLine(pending);
      pending = '';
      resolveRun({ exitCode, signal, stdout, stderr, messages, results, failure });
    };
    child.on('error', (err) => {
      finish(null, null, emptyResult('error', ErrorCodes.claudeCodeSpawnFailed, `could not start ${opts.binary ?? 'claude'}: ${err.message}`));
    });
    child.on('close', (exitCode, signal) => {
      if (timedOut) {
        killTree('SIGKILL');
        return finish(exitCode, signal, emptyResult('error', ErrorCodes.claudeCodeTimeout, `claude did not finish within ${opts.timeoutMs ?? 30 * 60_000} ms`));
      }
      if (cancelled) {
        killTree('SIGKILL');
        return finish(exitCode, signal, emptyResult('cancelled', ErrorCodes.claudeCodeFailed, 'cancelled'));
      }
      finish(exitCode, signal);
    });
  });
}
