import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { ApiClient } from '../api-client';
import { CliError, ExitCode } from '../exit-codes';
import { printRecord, printTable, type Io } from '../output';
import { followRun } from './follow-run';
import type { RunViewLike } from './run-progress';

export interface RunCommandKit {
  io: Io;
  signal: AbortSignal;
  client(cmd: Command): ApiClient;
  teamOf(cmd: Command): string;
  show(cmd: Command, value: unknown, human: () => void): void;
  json(cmd: Command): boolean;
}

/** The runtimes a run may put its sessions on (the orchestrator checks them again). */
const agentRuntimes = ['built-in', 'claude-code'] as const;

/** Team names are `a-z0-9-`: a run's default team is its workspace directory's name, made to fit. */
export const teamNameFor = (dir: string) =>
  dir.split(/[\\/]/).filter(Boolean).at(-1)!.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64) || 'team';

export interface StartRunInput {
  goalFile: string;
  source?: string;
  team?: string;
  mode?: string;
  interactive?: boolean;
  /** `built-in` or `claude-code` for every session of the run; none: each member's or persona's. */
  runtime?: string;
  /** A custom agent (`.headspace/agents/<name>.md` of the workspace, or the user's) for the run's build sessions. */
  agent?: string;
  /** Pins every session's model / effort instead of routing each one. */
  model?: string;
  effort?: string;
}

/** POSTs a run for a goal file; the workspace defaults to the goal file's directory. */
export async function startRunFromGoal(api: ApiClient, input: StartRunInput): Promise<{ runId: string; team: string }> {
  const goalPath = resolve(input.goalFile);
  if (!existsSync(goalPath) || !statSync(goalPath).isFile()) throw new CliError(ExitCode.usage, `No goal file at ${goalPath}`);
  const source = resolve(input.source ?? dirname(goalPath));
  if (!existsSync(source) || !statSync(source).isDirectory()) throw new CliError(ExitCode.usage, `No workspace directory at ${source}`);
  const team = input.team ?? teamNameFor(source);
  const body = { goal: readFileSync(goalPath, 'utf8'), source, mode: input.mode ?? 'v3', operator: input.interactive ? 'interactive' : 'auto', ...(input.runtime ? { runtime: input.runtime } : {}), ...(input.agent ? { agent: input.agent } : {}), ...(input.model ? { model: input.model } : {}), ...(input.effort ? { effort: input.effort } : {}) };
  const { runId } = await api.post<{ runId: string }>(`/api/v1/teams/${encodeURIComponent(team)}/runs`, body, { 'idempotency-key': randomUUID() });
  return { runId, team };
}

export function addRunCommands(program: Command, kit: RunCommandKit): void {
  program
    .command('run')
    .description('Start a run: the team works the goal (workshop → spec → tasks → build → QA → review) and you watch it live')
    .argument('<goal-file>', 'markdown file with the goal')
    .option('-w, --workspace <dir>', 'git repository or directory the team works on (default: the goal file’s directory)')
    .option('-t, --team <name>', 'team (default: the workspace directory’s name)')
    .option('--mode <mode>', 'v1 (you write the tasks), v2 (you approve Gavin’s tasks), v3 (Gavin decides)', 'v3')
    .option('--interactive', 'answer Robbo’s questions and accept the spec yourself (default: the auto operator accepts)')
    .option('--runtime <runtime>', 'built-in or claude-code for every session of the run (default: each member’s or persona’s runtime)')
    .option('-a, --agent <name>', 'a custom agent (.headspace/agents/<name>.md of the workspace, or yours) the run’s build sessions run as')
    .option('--model <model>', 'pin every session’s model (id or alias) instead of routing each one')
    .option('--effort <effort>', 'pin every session’s thinking effort: quick, standard or deep')
    .option('--no-follow', 'start it and print its id without watching')
    .action(async (goalFile: string, o: { workspace?: string; team?: string; mode: string; interactive?: boolean; runtime?: string; agent?: string; model?: string; effort?: string; follow: boolean }, cmd: Command) => {
      if (!['v1', 'v2', 'v3'].includes(o.mode)) throw new CliError(ExitCode.usage, `--mode must be v1, v2 or v3, got "${o.mode}"`);
      if (o.runtime !== undefined && !(agentRuntimes as readonly string[]).includes(o.runtime)) throw new CliError(ExitCode.usage, `--runtime must be ${agentRuntimes.join(' or ')}, got "${o.runtime}"`);
      if (o.effort !== undefined && !['quick', 'standard', 'deep'].includes(o.effort)) throw new CliError(ExitCode.usage, `--effort must be quick, standard or deep, got "${o.effort}"`);
      if (o.mode === 'v1') throw new CliError(ExitCode.usage, 'v1 runs take the operator’s tasks: start them through the API (POST /api/v1/teams/:team/runs with "tasks")');
      const api = kit.client(cmd);
      const { runId, team } = await startRunFromGoal(api, { goalFile, source: o.workspace, team: o.team, mode: o.mode, interactive: o.interactive, runtime: o.runtime, agent: o.agent, model: o.model, effort: o.effort });
      if (!o.follow || kit.json(cmd)) {
        kit.show(cmd, { runId, team }, () => kit.io.out.write(`${runId}\n`));
        return;
      }
      const summary = await followRun(api, kit.io, { team, runId, signal: kit.signal, ask: Boolean(o.interactive) && Boolean(process.stdin.isTTY) });
      if (summary && summary.view.phase !== 'completed') throw new CliError(ExitCode.runFailed, `Run ${runId} failed: ${summary.view.failure ?? 'see the events'}`);
    });

  const runs = program.command('runs').description('Runs of a team: list, show, follow, answer');
  runs
    .command('list')
    .option('-t, --team <name>')
    .action(async (_o, cmd: Command) => {
      const team = kit.teamOf(cmd);
      const items = await kit.client(cmd).all<{ runId: string; title: string; phase: string; mode: string; startedAt: string; verdict: string | null }>(`/api/v1/teams/${encodeURIComponent(team)}/runs`);
      kit.show(cmd, items, () => printTable(kit.io, items, [['run', (r) => r.runId], ['title', (r) => r.title], ['phase', (r) => r.phase], ['mode', (r) => r.mode], ['verdict', (r) => r.verdict], ['started', (r) => r.startedAt]], 'No runs yet.'));
    });
  runs
    .command('show')
    .argument('<runId>')
    .option('-t, --team <name>')
    .action(async (runId: string, _o, cmd: Command) => {
      const view = await kit.client(cmd).get<RunViewLike & Record<string, unknown>>(`/api/v1/teams/${encodeURIComponent(kit.teamOf(cmd))}/runs/${encodeURIComponent(runId)}`);
      kit.show(cmd, view, () => {
        const { tasks, personas, ...rest } = view;
        printRecord(kit.io, rest);
        printTable(kit.io, tasks, [['task', (t) => t.key], ['subject', (t) => t.subject], ['status', (t) => t.status], ['persona', (t) => t.persona], ['attempts', (t) => t.attempts]], 'No tasks yet.');
        printTable(kit.io, personas, [['persona', (p) => p.name], ['doing', (p) => p.activity]], 'Nobody has worked yet.');
      });
    });
  runs
    .command('follow')
    .argument('<runId>')
    .option('-t, --team <name>')
    .action(async (runId: string, _o, cmd: Command) => {
      await followRun(kit.client(cmd), kit.io, { team: kit.teamOf(cmd), runId, signal: kit.signal, ask: Boolean(process.stdin.isTTY) });
    });
  runs
    .command('answer')
    .argument('<runId>')
    .option('-t, --team <name>')
    .option('--answer <text>', 'answer Robbo’s questions')
    .option('--accept-spec', 'accept the drafted spec')
    .option('--approve-tasks', 'approve Gavin’s tasks as proposed')
    .option('--tasks <file>', 'approve these tasks instead (JSON array of {key, subject, description, pool, acceptanceCriteria, dependsOn})')
    .option('--escalation <id>', 'answer this escalation')
    .option('--stop', 'with --escalation: stop the run (default: continue)')
    .description('Answer what a run waits for')
    .action(async (runId: string, o: { answer?: string; acceptSpec?: boolean; approveTasks?: boolean; tasks?: string; escalation?: string; stop?: boolean }, cmd: Command) => {
      const body = o.answer
        ? { kind: 'questions', answer: o.answer }
        : o.acceptSpec
          ? { kind: 'spec', accept: true }
          : o.approveTasks || o.tasks
            ? { kind: 'tasks', ...(o.tasks ? { tasks: JSON.parse(readFileSync(resolve(o.tasks), 'utf8')) as unknown } : {}) }
            : o.escalation
              ? { kind: 'escalation', escalationId: o.escalation, answer: o.stop ? 'stop' : 'continue' }
              : undefined;
      if (!body) throw new CliError(ExitCode.usage, 'Say what to answer: --answer, --accept-spec, --approve-tasks, --tasks <file> or --escalation <id>');
      const result = await kit.client(cmd).post(`/api/v1/teams/${encodeURIComponent(kit.teamOf(cmd))}/runs/${encodeURIComponent(runId)}/answer`, body, { 'idempotency-key': randomUUID() });
      kit.show(cmd, result, () => kit.io.out.write(`answered ${runId}\n`));
    });
}
