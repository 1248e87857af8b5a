import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { abortableSleep as sleep } from '../abortable-sleep';
import type { ApiClient } from '../api-client';
import { CliError, ExitCode } from '../exit-codes';
import { printTable } from '../output';
import { teamNameFor, type RunCommandKit } from '../run/run-commands';
import { comparisonLines, evalRunSummaryLines, suitePathOf, taskLine, type EvalComparisonLike, type EvalRunViewLike } from './eval-output';

const enc = encodeURIComponent;
const efforts = ['quick', 'standard', 'deep'] as const;
const POLL_MS = 500;

/** A score drop 0..1, or a usage error naming the flag. */
const fraction = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new CliError(ExitCode.usage, `--threshold must be a number from 0 to 1, got "${value}"`);
  return n;
};

interface RunOptions {
  workspace?: string;
  team?: string;
  agent?: string;
  model?: string;
  effort?: string;
  baseline?: string;
  threshold?: number;
  ci: boolean;
  follow: boolean;
}

/**
 * `headspace eval run|compare|status|list`: eval suites run against a configuration and compared
 * with a baseline. With `--ci`, a regression ends the command with exit code 6 (ExitCode.evalRegression).
 */
export function addEvalCommands(program: Command, kit: RunCommandKit): void {
  const evals = program.command('eval').description('Evaluations: suites of graded tasks run against an agent/model/effort, compared with a baseline run');
  const path = (team: string, tail: string) => `/api/v1/teams/${enc(team)}/evals${tail}`;

  evals
    .command('run')
    .description('Run a suite (evals/<suite>.yaml of the workspace) and follow it task by task')
    .argument('<suite>', 'the suite’s name (evals/<suite>.yaml) or its path in the workspace')
    .option('-w, --workspace <dir>', 'directory under the orchestrator’s HS_SOURCE_ROOTS holding the suite (default: the current directory)')
    .option('-t, --team <name>', 'team (default: the workspace directory’s name)')
    .option('-a, --agent <name>', 'the agent or persona every task runs as (default: the builder)')
    .option('--model <model>', 'pin the model (id or alias) instead of routing')
    .option('--effort <effort>', 'pin the thinking effort: quick, standard or deep')
    .option('--baseline <evalRunId>', 'compare with this completed run when done')
    .option('--threshold <drop>', 'a score drop (0..1) past which a task counts as regressed (default 0.1)', fraction)
    .option('--ci', 'exit 6 when the comparison with --baseline lists a regression', false)
    .option('--no-follow', 'print the eval run id and return')
    .action(async (suite: string, o: RunOptions, cmd: Command) => {
      if (o.effort !== undefined && !(efforts as readonly string[]).includes(o.effort)) throw new CliError(ExitCode.usage, `--effort must be ${efforts.join(', ')}, got "${o.effort}"`);
      if (o.ci && !o.baseline) throw new CliError(ExitCode.usage, '--ci needs --baseline <evalRunId> to compare with');
      const workspace = resolve(o.workspace ?? process.cwd());
      if (!(existsSync(workspace) && statSync(workspace).isDirectory())) throw new CliError(ExitCode.usage, `No workspace directory at ${workspace}`);
      const team = o.team ?? teamNameFor(workspace);
      const api = kit.client(cmd);
      const body = {
        workspace,
        suite: suitePathOf(suite),
        ...(o.agent ? { agent: o.agent } : {}),
        ...(o.model ? { model: o.model } : {}),
        ...(o.effort ? { effort: o.effort } : {}),
        ...(o.baseline ? { baseline: o.baseline } : {}),
      };
      const started = await api.post<{ evalRunId: string; tasks: number }>(path(team, '/runs'), body, { 'idempotency-key': randomUUID() });
      if (!o.follow) {
        kit.show(cmd, started, () => kit.io.out.write(`eval run ${started.evalRunId} started (${started.tasks} tasks)\n`));
        return;
      }
      const say = (line: string) => (kit.json(cmd) ? undefined : kit.io.out.write(`${line}\n`));
      say(`eval run ${started.evalRunId} started (${started.tasks} tasks)`);
      const view = await followEvalRun(api, path(team, `/runs/${enc(started.evalRunId)}`), kit.signal, say);
      if (kit.json(cmd)) kit.io.out.write(`${JSON.stringify(view)}\n`);
      else evalRunSummaryLines(view).filter((line) => /^(score|failure):/.test(line)).forEach(say);
      if (view.status === 'failed') throw new CliError(ExitCode.runFailed, `Eval run ${view.evalRunId} failed: ${view.failure ?? 'see its events'}`);
      if (o.baseline) await compareAndReport(api, kit, cmd, path(team, '/compare'), { base: o.baseline, head: view.evalRunId, threshold: o.threshold, ci: o.ci });
    });

  evals
    .command('compare')
    .description('Per-task score deltas of <head> against <base>, the regressions listed')
    .argument('<base>', 'the baseline eval run id')
    .argument('<head>', 'the eval run id to judge')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .option('--threshold <drop>', 'a score drop (0..1) past which a task counts as regressed (default 0.1)', fraction)
    .option('--ci', 'exit 6 when a regression is listed', false)
    .action(async (base: string, head: string, o: { team?: string; threshold?: number; ci: boolean }, cmd: Command) => {
      await compareAndReport(kit.client(cmd), kit, cmd, path(o.team ?? kit.teamOf(cmd), '/compare'), { base, head, threshold: o.threshold, ci: o.ci });
    });

  evals
    .command('status')
    .description('An eval run: every task’s grades and score, and the overall score')
    .argument('<evalRunId>')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (evalRunId: string, o: { team?: string }, cmd: Command) => {
      const view = await kit.client(cmd).get<EvalRunViewLike>(path(o.team ?? kit.teamOf(cmd), `/runs/${enc(evalRunId)}`));
      kit.show(cmd, view, () => evalRunSummaryLines(view).forEach((line) => kit.io.out.write(`${line}\n`)));
    });

  evals
    .command('list')
    .description('The team’s eval runs, newest first')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (o: { team?: string }, cmd: Command) => {
      const rows = await kit.client(cmd).all<{ evalRunId: string; status: string; suite: string; model: string | null; score: number | null; passed: number; total: number; startedAt: string }>(path(o.team ?? kit.teamOf(cmd), '/runs'));
      kit.show(cmd, rows, () =>
        printTable(kit.io, rows, [
          ['eval run', (r) => r.evalRunId],
          ['suite', (r) => r.suite],
          ['status', (r) => r.status],
          ['model', (r) => r.model ?? 'routed'],
          ['score', (r) => (r.score === null ? '' : r.score.toFixed(2))],
          ['passed', (r) => `${r.passed}/${r.total}`],
          ['started', (r) => r.startedAt],
        ]),
      );
    });
}

/** Polls the run's view, printing each task as it is graded, until the run ends. */
async function followEvalRun(api: ApiClient, path: string, signal: AbortSignal, say: (line: string) => void): Promise<EvalRunViewLike> {
  const printed = new Set<string>();
  for (;;) {
    const view = await api.get<EvalRunViewLike>(path);
    for (const t of view.tasks) {
      if (t.status !== 'graded' || printed.has(t.taskId)) continue;
      printed.add(t.taskId);
      say(taskLine(t));
    }
    if (view.status !== 'running' || signal.aborted) return view;
    await sleep(POLL_MS, signal);
  }
}

async function compareAndReport(api: ApiClient, kit: RunCommandKit, cmd: Command, path: string, o: { base: string; head: string; threshold?: number | undefined; ci: boolean }): Promise<void> {
  const comparison = await api.get<EvalComparisonLike>(path, { base: o.base, head: o.head, ...(o.threshold !== undefined ? { threshold: String(o.threshold) } : {}) });
  kit.show(cmd, comparison, () => comparisonLines(comparison).forEach((line) => kit.io.out.write(`${line}\n`)));
  if (o.ci && comparison.regressions.length > 0) {
    throw new CliError(ExitCode.evalRegression, `${comparison.regressions.length} regression(s) against ${o.base}: ${comparison.regressions.map((r) => r.taskId).join(', ')}`);
  }
}

