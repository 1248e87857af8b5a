import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { abortableSleep as sleep } from '../abortable-sleep';
import type { ApiClient } from '../api-client';
import { routingLine, turnLines, type AskRoutingLike } from '../ask/ask-output';
import { CliError, ExitCode } from '../exit-codes';
import { printTable, success, type Io } from '../output';
import { teamNameFor, type RunCommandKit } from '../run/run-commands';
import { SseParser } from '../sse-reader';
import { iterationLine, loopSummaryLines, type LoopIterationLike, type LoopViewLike } from './loop-output';

const enc = encodeURIComponent;
const efforts = ['quick', 'standard', 'deep'] as const;
const isGitUrl = (s: string) => /^(https:|ssh:|file:)\/\//.test(s) || /^[\w.~-]+@[\w.-]+:/.test(s);

/** A whole number option, or a usage error naming the flag. */
const count = (flag: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw new CliError(ExitCode.usage, `${flag} must be a whole number, got "${value}"`);
  return Number(value);
};

interface StartOptions {
  workspace?: string;
  team?: string;
  check?: string;
  maxIterations?: number;
  maxDiffLines?: number;
  sameErrorLimit?: number;
  stopFile?: string;
  agent?: string;
  model?: string;
  effort?: string;
  follow: boolean;
}

/** `headspace loop start|status|list|stop`: self-improving loops (a fresh agent per iteration until the check passes or a safety control stops it). */
export function addLoopCommands(program: Command, kit: RunCommandKit): void {
  const loop = program.command('loop').description('Self-improving loops: a fresh agent per iteration, learnings carried in a loop-context file, git checkpoints, four safety controls');
  const path = (team: string, id?: string, tail = '') => `/api/v1/teams/${enc(team)}/loops${id ? `/${enc(id)}` : ''}${tail}`;

  loop
    .command('start')
    .description('Start a loop on a workspace and follow it iteration by iteration')
    .argument('<task>', 'what the loop should achieve, e.g. "make npm test pass"')
    .option('-w, --workspace <dir>', 'directory (under the orchestrator’s HS_SOURCE_ROOTS) or git URL (default: the current directory)')
    .option('-t, --team <name>', 'team (default: the workspace directory’s name)')
    .option('-c, --check <command>', 'the acceptance check run in the sandbox after each iteration (exit 0: done)')
    .option('--max-iterations <n>', 'stop after this many iterations (default 10)', count('--max-iterations'))
    .option('--max-diff-lines <n>', 'stop (and revert the iteration) when one iteration changes more lines (default 500)', count('--max-diff-lines'))
    .option('--same-error-limit <n>', 'stop when the check fails with the same error this many times in a row (default 3)', count('--same-error-limit'))
    .option('--stop-file <path>', 'halt at the next iteration boundary when this file exists in the workspace (default .auto/stop)')
    .option('-a, --agent <name>', 'the agent or persona to run each iteration as (default: the builder)')
    .option('--model <model>', 'pin the model (id or alias) instead of routing')
    .option('--effort <effort>', 'pin the thinking effort: quick, standard or deep')
    .option('--no-follow', 'print the loop id and return')
    .action(async (task: string, o: StartOptions, cmd: Command) => {
      if (o.effort !== undefined && !(efforts as readonly string[]).includes(o.effort)) throw new CliError(ExitCode.usage, `--effort must be ${efforts.join(', ')}, got "${o.effort}"`);
      const raw = o.workspace ?? process.cwd();
      const workspace = isGitUrl(raw) ? raw : resolve(raw);
      if (!isGitUrl(raw) && !(existsSync(workspace) && statSync(workspace).isDirectory())) throw new CliError(ExitCode.usage, `No workspace directory at ${workspace}`);
      const team = o.team ?? teamNameFor(workspace.replace(/\.git$/, ''));
      const api = kit.client(cmd);
      const since = new Date(Date.now() - 2_000).toISOString();
      const body = {
        task,
        workspace,
        ...(o.check ? { check: o.check } : {}),
        ...(o.maxIterations !== undefined ? { maxIterations: o.maxIterations } : {}),
        ...(o.maxDiffLines !== undefined ? { maxDiffLines: o.maxDiffLines } : {}),
        ...(o.sameErrorLimit !== undefined ? { sameErrorLimit: o.sameErrorLimit } : {}),
        ...(o.stopFile ? { stopFile: o.stopFile } : {}),
        ...(o.agent ? { agent: o.agent } : {}),
        ...(o.model ? { model: o.model } : {}),
        ...(o.effort ? { effort: o.effort } : {}),
      };
      const started = await api.post<{ loopId: string; routing: AskRoutingLike }>(path(team), body, { 'idempotency-key': randomUUID() });
      if (!o.follow) {
        kit.show(cmd, started, () => success(kit.io, `loop ${started.loopId} started`));
        return;
      }
      const view = await followLoop(api, kit.io, { team, loopId: started.loopId, routing: started.routing, since, signal: kit.signal, json: kit.json(cmd), path: path(team, started.loopId) });
      if (view.status === 'failed') throw new CliError(ExitCode.runFailed, `Loop ${view.loopId} failed: ${view.stopDetail ?? 'see its events'}`);
    });

  loop
    .command('status')
    .description('A loop’s iterations (checks, lines changed, checkpoints, learnings) and stop reason')
    .argument('<loopId>')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (loopId: string, o: { team?: string }, cmd: Command) => {
      const view = await kit.client(cmd).get<LoopViewLike>(path(o.team ?? kit.teamOf(cmd), loopId));
      kit.show(cmd, view, () => loopSummaryLines(view).forEach((line) => kit.io.out.write(`${line}\n`)));
    });

  loop
    .command('list')
    .description('The team’s loops, newest first')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (o: { team?: string }, cmd: Command) => {
      const rows = await kit.client(cmd).all<{ loopId: string; status: string; stopReason: string | null; iterations: number; model: string; startedAt: string }>(path(o.team ?? kit.teamOf(cmd)));
      kit.show(cmd, rows, () =>
        printTable(kit.io, rows, [
          ['loop', (r) => r.loopId],
          ['status', (r) => r.status],
          ['stop reason', (r) => r.stopReason ?? ''],
          ['iterations', (r) => r.iterations],
          ['model', (r) => r.model],
          ['started', (r) => r.startedAt],
        ]),
      );
    });

  loop
    .command('stop')
    .description('Stop a loop at its next iteration boundary (the iteration at work finishes and is checkpointed)')
    .argument('<loopId>')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (loopId: string, o: { team?: string }, cmd: Command) => {
      const result = await kit.client(cmd).post<{ loopId: string; status: string; stopRequested: boolean }>(path(o.team ?? kit.teamOf(cmd), loopId, '/stop'), {}, { 'idempotency-key': randomUUID() });
      kit.show(cmd, result, () => success(kit.io, result.status === 'running' ? `loop ${loopId} will stop at its next iteration boundary` : `loop ${loopId} already ${result.status}`));
    });
}

interface FollowOptions {
  team: string;
  loopId: string;
  routing: AskRoutingLike;
  since: string;
  signal: AbortSignal;
  json: boolean;
  path: string;
}

/**
 * Prints the routing line, then each iteration's start, the agent's turns and the iteration's
 * outcome as the loop's events arrive on the SSE stream (`run=<loopId>`), then the summary. The
 * loop's view is polled beside the stream as the truth about its end, as `ask` does.
 */
async function followLoop(api: ApiClient, io: Io, o: FollowOptions): Promise<LoopViewLike> {
  const say = (line: string) => io.out.write(`${line}\n`);
  if (o.json) say(JSON.stringify({ loopId: o.loopId, routing: o.routing }));
  else say(`${routingLine(o.routing)}\nloop ${o.loopId} started`);
  const streaming = new AbortController();
  const stop = () => streaming.abort();
  o.signal.addEventListener('abort', stop, { once: true });
  let streamEnded = false;
  const stream = streamLoop(api, o, streaming.signal, (line) => (o.json ? undefined : say(line))).finally(() => (streamEnded = true));
  try {
    let view = await api.get<LoopViewLike>(o.path);
    for (let afterEnd = 0; !o.signal.aborted; ) {
      if (view.status !== 'running' && (streamEnded || afterEnd++ >= 10)) break;
      await sleep(300, o.signal);
      if (view.status === 'running') view = await api.get<LoopViewLike>(o.path);
    }
    if (o.json) say(JSON.stringify(view));
    else for (const line of loopSummaryLines(view)) say(line);
    return view;
  } finally {
    stop();
    o.signal.removeEventListener('abort', stop);
    await stream;
  }
}

async function streamLoop(api: ApiClient, o: FollowOptions, signal: AbortSignal, print: (line: string) => void): Promise<void> {
  const res = await fetch(api.url('/api/v1/stream', { run: o.loopId, types: 'loop.*,session.model-called', since: o.since }), { headers: api.headers({ accept: 'text/event-stream' }), signal }).catch(() => undefined);
  if (!res?.ok || !res.body) return;
  let done = false;
  const seen = new Set<string>();
  const parser = new SseParser((message) => {
    let event: { eventId?: string; type?: string; data?: Record<string, unknown> };
    try {
      event = JSON.parse(message.data) as typeof event;
    } catch {
      return;
    }
    if (event.eventId && seen.has(event.eventId)) return;
    if (event.eventId) seen.add(event.eventId);
    const d = event.data ?? {};
    if (event.type === 'loop.iteration-started') print(`— iteration ${String(d.iteration)} started (a fresh session)`);
    if (event.type === 'loop.iteration-ended') print(iterationLine(d as unknown as LoopIterationLike));
    if (event.type === 'session.model-called' && Array.isArray(d.content)) {
      const lines = turnLines(d.content as Array<Record<string, unknown>>);
      if (lines.length) print(`[turn ${String(d.turn ?? '?')}] ${lines.join('\n')}`);
    }
    if (event.type === 'loop.stopped') done = true;
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      parser.push(decoder.decode(chunk, { stream: true }));
      if (done) break;
    }
  } catch {
    // stopped or dropped: the polled view carries the end
  }
}
