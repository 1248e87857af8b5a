import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { ApiClient } from '../api-client';
import { CliError, ExitCode } from '../exit-codes';
import type { Io } from '../output';
import { teamNameFor, type RunCommandKit } from '../run/run-commands';
import { SseParser } from '../sse-reader';
import { routingLine, summaryLines, turnLines, type AskRoutingLike, type AskViewLike } from './ask-output';
import { abortableSleep as sleep } from '../abortable-sleep';

const efforts = ['quick', 'standard', 'deep'] as const;
/** A workspace given as a git URL is passed as it is; anything else is a local directory. */
const isGitUrl = (s: string) => /^(https:|ssh:|file:)\/\//.test(s) || /^[\w.~-]+@[\w.-]+:/.test(s);

interface AskOptions {
  agent?: string;
  workspace?: string;
  team?: string;
  model?: string;
  effort?: string;
}

/** `headspace ask "<prompt>"`: one agent, streamed turn by turn, then the result, files, branch and cost. */
export function addAskCommand(program: Command, kit: RunCommandKit): void {
  program
    .command('ask')
    .description('Ask one agent to do something (no workshop, no decomposition): routed to the cheapest capable model, streamed as it works')
    .argument('<prompt>', 'what to do, e.g. "fix the typo in README.md"')
    .option('-a, --agent <name>', 'the agent to run: a custom agent (.headspace/agents/<name>.md of the workspace, or yours), else a persona id (default: the builder)')
    .option('-w, --workspace <dir>', 'directory (under the orchestrator’s HS_SOURCE_ROOTS) or git URL the agent works on a branch of (default: the current directory)')
    .option('-t, --team <name>', 'team (default: the workspace directory’s name)')
    .option('--model <model>', 'pin the model (id or alias) instead of routing')
    .option('--effort <effort>', 'pin the thinking effort: quick, standard or deep')
    .action(async (prompt: string, o: AskOptions, cmd: Command) => {
      if (o.effort !== undefined && !(efforts as readonly string[]).includes(o.effort)) throw new CliError(ExitCode.usage, `--effort must be ${efforts.join(', ')}, got "${o.effort}"`);
      const raw = o.workspace ?? process.cwd();
      const workspace = isGitUrl(raw) ? raw : resolve(raw);
      if (!isGitUrl(raw) && !(existsSync(workspace) && statSync(workspace).isDirectory())) throw new CliError(ExitCode.usage, `No workspace directory at ${workspace}`);
      const team = o.team ?? teamNameFor(workspace.replace(/\.git$/, ''));
      const api = kit.client(cmd);
      const since = new Date(Date.now() - 2_000).toISOString();
      const body = { prompt, workspace, ...(o.agent ? { agent: o.agent } : {}), ...(o.model ? { model: o.model } : {}), ...(o.effort ? { effort: o.effort } : {}) };
      const started = await api.post<{ askId: string; routing: AskRoutingLike }>(`/api/v1/teams/${encodeURIComponent(team)}/asks`, body, { 'idempotency-key': randomUUID() });
      const view = await followAsk(api, kit.io, { team, askId: started.askId, since, signal: kit.signal, json: kit.json(cmd), routing: started.routing });
      if (view.status === 'failed') throw new CliError(ExitCode.runFailed, `Ask ${view.askId} failed: ${view.failure ?? 'see its events'}`);
    });
}

export interface FollowAskOptions {
  team: string;
  askId: string;
  /** Where the event stream starts (a little before the ask was posted). */
  since: string;
  signal: AbortSignal;
  json: boolean;
  routing: AskRoutingLike;
  pollMs?: number;
}

/**
 * Prints the routing line, then the agent's turns as the ask's events arrive on the SSE stream
 * (`run=<askId>`: the ask's and its session's events), then the summary. The ask's own view is
 * polled beside the stream as the truth about its end, so a token that may not read the stream,
 * or a stream that drops, still ends with the result.
 */
export async function followAsk(api: ApiClient, io: Io, o: FollowAskOptions): Promise<AskViewLike> {
  const path = `/api/v1/teams/${encodeURIComponent(o.team)}/asks/${encodeURIComponent(o.askId)}`;
  const say = (line: string) => io.out.write(`${line}\n`);
  if (o.json) say(JSON.stringify({ askId: o.askId, routing: o.routing }));
  else say(`${routingLine(o.routing)}\nask ${o.askId} started`);
  const streaming = new AbortController();
  const stop = () => streaming.abort();
  o.signal.addEventListener('abort', stop, { once: true });
  let streamEnded = false;
  const stream = streamTurns(api, o, streaming.signal, (line) => (o.json ? undefined : say(line)))
    .then(() => (streamEnded = true))
    .catch(() => (streamEnded = true));
  try {
    let view = await api.get<AskViewLike>(path);
    for (let afterEnd = 0; !o.signal.aborted; ) {
      if (view.status !== 'running') {
        // Give the stream a moment to print the last turn, which it saw before the end.
        if (streamEnded || afterEnd++ >= 10) break;
      }
      await sleep(o.pollMs ?? 300, o.signal);
      if (view.status === 'running') view = await api.get<AskViewLike>(path);
    }
    if (o.json) say(JSON.stringify(view));
    else for (const line of summaryLines(view)) say(line);
    return view;
  } finally {
    stop();
    o.signal.removeEventListener('abort', stop);
    await stream;
  }
}

/** Reads the stream until the ask ends there (ask.completed / ask.failed) or it is stopped. */
async function streamTurns(api: ApiClient, o: FollowAskOptions, signal: AbortSignal, print: (line: string) => void): Promise<void> {
  const res = await fetch(api.url('/api/v1/stream', { run: o.askId, types: 'ask.*,session.model-called', since: o.since }), {
    headers: api.headers({ accept: 'text/event-stream' }),
    signal,
  });
  if (!res.ok || !res.body) return;
  let done = false;
  const seen = new Set<string>();
  const parser = new SseParser((message) => {
    let event: { eventId?: string; type?: string; data?: { turn?: number; content?: Array<Record<string, unknown>> } };
    try {
      event = JSON.parse(message.data) as typeof event;
    } catch {
      return;
    }
    if (event.eventId && seen.has(event.eventId)) return;
    if (event.eventId) seen.add(event.eventId);
    if (event.type === 'session.model-called' && event.data?.content) {
      const lines = turnLines(event.data.content);
      if (lines.length) print(`[turn ${event.data.turn ?? '?'}] ${lines.join('\n')}`);
    }
    if (event.type === 'ask.completed' || event.type === 'ask.failed') done = true;
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
