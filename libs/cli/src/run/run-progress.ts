import { createColors } from 'picocolors';

/** The run as the gateway serves it (`GET /api/v1/teams/:team/runs/:runId`), the fields drawn here. */
export interface RunViewLike {
  runId: string;
  team: string;
  title: string;
  mode: string;
  phase: string;
  simulated: boolean;
  waitingFor: string | null;
  questions: string[];
  tasks: Array<{ key: string; subject: string; status: string; persona: string | null; attempts: number; origin: string }>;
  personas: Array<{ persona: string; name: string; activity: string }>;
  qaRounds: number;
  /** A fix run's checks of its test command. */
  regressionChecks?: Array<{ stage: 'before-fix' | 'after-fix'; ok: boolean; exitCode: number; commit: string; at: string }>;
  resultDir: string | null;
  branch: string | null;
  verdict: string | null;
  failure: string | null;
  startedAt: string;
  endedAt: string | null;
}

export interface SpendGroup {
  key: string;
  calls: number;
  costUsd: string;
}

export interface RenderOptions {
  width: number;
  color: boolean;
  now: Date;
}

const PHASES: Record<string, string> = {
  workshop: 'Workshop (Robbo)',
  'spec-review': 'Spec waiting for the operator',
  decomposition: 'Decomposition (Gavin)',
  'tasks-review': 'Tasks waiting for the operator',
  execution: 'Building',
  qa: 'QA (Verner)',
  review: 'Review (Robbo)',
  completed: 'Completed',
  failed: 'Failed',
};

/** Dollars as people read them: cents from ten cents up, four decimals below (simulated runs cost fractions of a cent). */
export const formatUsd = (usd: string | number) => {
  const n = Number(usd);
  return Number.isFinite(n) ? `$${n >= 0.1 ? n.toFixed(2) : n.toFixed(4)}` : `$${usd}`;
};

export const formatDuration = (ms: number) => {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
};

const clip = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`);

export function progressBar(done: number, total: number, width: number): string {
  const cells = Math.max(5, width);
  const filled = total === 0 ? 0 : Math.round((done / total) * cells);
  return `[${'#'.repeat(filled)}${'.'.repeat(cells - filled)}]`;
}

const CHECK_LINES = {
  'before-fix': { ok: 'regression test fails before the fix ✓', failed: 'regression test does not fail before the fix ✗ (sent back)' },
  'after-fix': { ok: 'regression test passes after the fix ✓', failed: 'regression test still fails after the fix ✗ (sent back)' },
} as const;

/** A fix run's checks, oldest first: the orchestrator ran the test command before and after the fix. */
export function regressionCheckLines(view: Pick<RunViewLike, 'regressionChecks'>, color: boolean): string[] {
  const c = createColors(color);
  return (view.regressionChecks ?? []).map((check) => {
    const line = CHECK_LINES[check.stage][check.ok ? 'ok' : 'failed'];
    return `  ${(check.ok ? c.green : c.red)(line)}${c.dim(` (exit ${check.exitCode} at ${check.commit.slice(0, 7)})`)}`;
  });
}

/** The live block: a header, a line per persona with what it is doing, a bar of tasks done, cost so far. */
export function renderRunProgress(view: RunViewLike, costUsd: string | undefined, options: RenderOptions): string[] {
  const c = createColors(options.color);
  const done = view.tasks.filter((t) => t.status === 'merged').length;
  const total = view.tasks.length;
  const elapsed = formatDuration((view.endedAt ? Date.parse(view.endedAt) : options.now.getTime()) - Date.parse(view.startedAt));
  const label = view.simulated ? c.yellow(' [simulated]') : '';
  const lines = [
    `${c.bold(clip(view.title, options.width - 20))}${label}  ${c.dim(`${view.runId} · ${elapsed}`)}`,
    `${c.cyan(PHASES[view.phase] ?? view.phase)}${view.qaRounds ? c.dim(`  · QA rounds ${view.qaRounds}`) : ''}`,
  ];
  const nameWidth = Math.max(6, ...view.personas.map((p) => p.name.length));
  for (const p of view.personas) {
    const busy = p.activity !== 'idle';
    lines.push(`  ${(busy ? c.green : c.dim)(p.name.padEnd(nameWidth))}  ${clip(busy ? p.activity : c.dim('idle'), options.width - nameWidth - 4)}`);
  }
  const bar = progressBar(done, total, Math.min(30, options.width - 40));
  lines.push(`  tasks ${bar} ${done}/${total}${costUsd !== undefined ? `   cost ${formatUsd(costUsd)}` : ''}`);
  lines.push(...regressionCheckLines(view, options.color));
  if (view.waitingFor) lines.push(c.yellow(`  waiting for ${view.waitingFor}`));
  return lines;
}

export interface RunSummary {
  view: RunViewLike;
  byPersona: SpendGroup[];
  byModel: SpendGroup[];
  totalUsd: string | undefined;
}

/** The end-of-run summary: tasks, attempts, QA rounds, cost by persona and model, wall time, where the result is. */
export function renderRunSummary(summary: RunSummary, options: Omit<RenderOptions, 'now'>): string[] {
  const c = createColors(options.color);
  const { view } = summary;
  const ok = view.phase === 'completed' && view.verdict === 'done';
  const wall = view.endedAt ? formatDuration(Date.parse(view.endedAt) - Date.parse(view.startedAt)) : '-';
  const attempts = view.tasks.reduce((n, t) => n + t.attempts, 0);
  const lines = [
    '',
    `${ok ? c.green('✔') : c.red('✖')} ${c.bold(view.title)} — ${view.phase === 'completed' ? `completed (${view.verdict})` : `failed: ${view.failure ?? 'unknown'}`}${view.simulated ? c.yellow('  [simulated: offline Messages-API simulator, no real model]') : ''}`,
    `  run          ${view.runId} (team ${view.team}, mode ${view.mode})`,
    `  wall time    ${wall}`,
    `  tasks        ${view.tasks.length} (${view.tasks.filter((t) => t.origin === 'qa-fix').length} from QA, ${view.tasks.filter((t) => t.origin === 'merge-conflict').length} merge conflicts), ${attempts} attempts`,
    `  QA rounds    ${view.qaRounds}`,
  ];
  const checks = regressionCheckLines(view, options.color);
  if (checks.length) lines.push('  checks', ...checks.map((l) => `  ${l}`));
  for (const t of view.tasks) lines.push(c.dim(`    ${t.key.padEnd(6)} ${t.status.padEnd(7)} ${(t.persona ?? '-').padEnd(7)} ${clip(t.subject, options.width - 30)}`));
  const money = (groups: SpendGroup[]) => groups.map((g) => `${g.key} ${formatUsd(g.costUsd)} (${g.calls} calls)`).join(', ') || '-';
  lines.push(`  cost         ${summary.totalUsd !== undefined ? formatUsd(summary.totalUsd) : '?'}${view.simulated ? c.dim(' (simulated usage priced at list prices)') : ''}`);
  lines.push(`    by persona ${money(summary.byPersona)}`);
  lines.push(`    by model   ${money(summary.byModel)}`);
  if (view.resultDir) lines.push(`  result       ${view.resultDir} (branch ${view.branch})`, c.dim(`               git -C ${view.resultDir} log --oneline ${view.branch}`));
  return lines;
}
