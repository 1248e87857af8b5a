import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { abortableSleep as sleep } from '../abortable-sleep';
import type { ApiClient } from '../api-client';
import { CliError, ExitCode } from '../exit-codes';
import { printTable, type Io } from '../output';
import { teamNameFor, type RunCommandKit } from '../run/run-commands';
import { SseParser } from '../sse-reader';

const enc = encodeURIComponent;
const isGitUrl = (s: string) => /^(https:|ssh:|file:)\/\//.test(s) || /^[\w.~-]+@[\w.-]+:/.test(s);

/** What the CLI reads of a workflow view (the API's WorkflowView). */
export interface WorkflowViewLike {
  workflowId: string;
  name: string;
  mode: string;
  status: 'running' | 'succeeded' | 'failed' | 'cancelled';
  simulated: boolean;
  steps: Array<{ id: string; status: string; attempts: number; needs: string[]; output: string | null; reason: string | null; costUsd: string | null; startedAt: string | null; endedAt: string | null }>;
  reason: string | null;
}

/** A workflow file: YAML (or JSON, which YAML reads too) holding the definition; a usage error names the file. */
export function readWorkflowFile(path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(ExitCode.usage, `Cannot read ${path}: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new CliError(ExitCode.usage, `${path} is not a workflow definition`, 'It holds `name` and `steps: [{ id, prompt, needs? }]`');
  return value as Record<string, unknown>;
}

const label = (v: WorkflowViewLike) => (v.simulated ? '  [simulated]' : '');

/** One line a step, then the workflow's end. */
export function workflowSummaryLines(v: WorkflowViewLike): string[] {
  const lines = [`workflow ${v.workflowId} (${v.name}, ${v.mode}) ${v.status}${label(v)}`];
  for (const s of v.steps) {
    const detail = s.status === 'succeeded' ? (s.output ?? '').split('\n')[0].slice(0, 100) : (s.reason ?? '');
    lines.push(`  ${s.id.padEnd(20)} ${s.status.padEnd(9)} ${s.attempts > 1 ? `(${s.attempts} attempts) ` : ''}${s.costUsd ? `$${s.costUsd} ` : ''}${detail}`.trimEnd());
  }
  if (v.reason) lines.push(`reason: ${v.reason}`);
  return lines;
}

/** Prints steps as they start and end (SSE `run=<workflowId>`); the polled view is the truth about the end. */
async function followWorkflow(api: ApiClient, io: Io, o: { team: string; workflowId: string; since: string; signal: AbortSignal; json: boolean }): Promise<WorkflowViewLike> {
  const path = `/api/v1/teams/${enc(o.team)}/workflows/${enc(o.workflowId)}`;
  const streaming = new AbortController();
  const stop = () => streaming.abort();
  o.signal.addEventListener('abort', stop, { once: true });
  const stream = (async () => {
    const res = await fetch(api.url('/api/v1/stream', { run: o.workflowId, types: 'workflow.*', since: o.since }), { headers: api.headers({ accept: 'text/event-stream' }), signal: streaming.signal });
    if (!res.ok || !res.body) return;
    const parser = new SseParser((message) => {
      let event: { type?: string; data?: { stepId?: string; attempt?: number; status?: string; reason?: string } };
      try {
        event = JSON.parse(message.data) as typeof event;
      } catch {
        return;
      }
      if (o.json || !event.data?.stepId) return;
      if (event.type === 'workflow.step-started') io.out.write(`step ${event.data.stepId} started (attempt ${event.data.attempt})\n`);
      if (event.type === 'workflow.step-ended') io.out.write(`step ${event.data.stepId} ${event.data.status}${event.data.reason ? `: ${event.data.reason}` : ''}\n`);
    });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.push(decoder.decode(chunk, { stream: true }));
  })().catch(() => undefined);
  try {
    let view = await api.get<WorkflowViewLike>(path);
    while (view.status === 'running' && !o.signal.aborted) {
      await sleep(500, o.signal);
      view = await api.get<WorkflowViewLike>(path);
    }
    return view;
  } finally {
    stop();
    o.signal.removeEventListener('abort', stop);
    await stream;
  }
}

/** `headspace workflow run|status|list|cancel`: DAG workflows and compound pipelines of asks. */
export function addWorkflowCommands(program: Command, kit: RunCommandKit): void {
  const workflow = program.command('workflow').description('Workflows: a DAG of ask steps run in parallel, or a pipeline of stages, crash-resumable');
  const path = (team: string, id?: string) => `/api/v1/teams/${enc(team)}/workflows${id ? `/${enc(id)}` : ''}`;
  const show = (cmd: Command, view: WorkflowViewLike) => kit.show(cmd, view, () => workflowSummaryLines(view).forEach((line) => kit.io.out.write(`${line}\n`)));

  workflow
    .command('run')
    .description('Start the workflow of a YAML (or JSON) file and follow it to its end')
    .argument('<file>', 'the definition: name, mode (dag|pipeline), concurrency, steps [{ id, prompt, needs, when, retries, agent, model, effort }]')
    .option('-w, --workspace <dir>', 'directory (under the orchestrator’s HS_SOURCE_ROOTS) or git URL every step works on (default: the file’s directory)')
    .option('-t, --team <name>', 'team (default: the workspace directory’s name)')
    .option('--detach', 'print the workflow id and return without following it')
    .action(async (file: string, o: { workspace?: string; team?: string; detach?: boolean }, cmd: Command) => {
      const definition = readWorkflowFile(file);
      const raw = o.workspace ?? dirname(resolve(file));
      const workspace = isGitUrl(raw) ? raw : resolve(raw);
      if (!isGitUrl(raw) && !(existsSync(workspace) && statSync(workspace).isDirectory())) throw new CliError(ExitCode.usage, `No workspace directory at ${workspace}`);
      const team = o.team ?? teamNameFor(workspace.replace(/\.git$/, ''));
      const api = kit.client(cmd);
      const since = new Date(Date.now() - 2_000).toISOString();
      const started = await api.post<{ workflowId: string }>(path(team), { workspace, definition }, { 'idempotency-key': randomUUID() });
      if (!kit.json(cmd)) kit.io.out.write(`workflow ${started.workflowId} started\n`);
      if (o.detach) {
        if (kit.json(cmd)) kit.io.out.write(`${JSON.stringify(started)}\n`);
        return;
      }
      const view = await followWorkflow(api, kit.io, { team, workflowId: started.workflowId, since, signal: kit.signal, json: kit.json(cmd) });
      show(cmd, view);
      if (view.status === 'failed' || view.status === 'cancelled') throw new CliError(ExitCode.runFailed, `Workflow ${view.workflowId} ${view.status}: ${view.reason ?? 'see its steps'}`);
    });

  workflow
    .command('status')
    .description('A workflow’s steps: status, attempts, cost and output')
    .argument('<workflowId>')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (workflowId: string, o: { team?: string }, cmd: Command) => show(cmd, await kit.client(cmd).get<WorkflowViewLike>(path(o.team ?? kit.teamOf(cmd), workflowId))));

  workflow
    .command('cancel')
    .description('Cancel a running workflow: no further step starts')
    .argument('<workflowId>')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (workflowId: string, o: { team?: string }, cmd: Command) => {
      const res = await kit.client(cmd).post<{ workflowId: string; status: string }>(`${path(o.team ?? kit.teamOf(cmd), workflowId)}/cancel`, {}, { 'idempotency-key': randomUUID() });
      kit.show(cmd, res, () => kit.io.out.write(`workflow ${res.workflowId} ${res.status}\n`));
    });

  workflow
    .command('list')
    .description('The team’s workflows, newest first')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (o: { team?: string }, cmd: Command) => {
      const rows = await kit.client(cmd).all<{ workflowId: string; name: string; mode: string; status: string; steps: number; simulated: boolean; startedAt: string }>(path(o.team ?? kit.teamOf(cmd)));
      kit.show(cmd, rows, () =>
        printTable(kit.io, rows, [
          ['workflow', (r) => r.workflowId],
          ['name', (r) => r.name],
          ['mode', (r) => r.mode],
          ['status', (r) => `${r.status}${r.simulated ? ' (simulated)' : ''}`],
          ['steps', (r) => r.steps],
          ['started', (r) => r.startedAt],
        ]),
      );
    });
}
