/** What the CLI reads of an eval run view (the API's EvalRunView). */
export interface EvalRunViewLike {
  evalRunId: string;
  status: 'running' | 'completed' | 'failed';
  suite: string;
  config: { agent?: string; model?: string; effort?: string };
  baseline: string | null;
  simulated: boolean;
  tasks: Array<{ taskId: string; status: string; model: string | null; score: number | null; passed: boolean | null; grades: Array<{ type: string; passed: boolean; detail: string }>; costUsd: string | null }>;
  score: number | null;
  passed: number;
  total: number;
  failure: string | null;
}

/** What the CLI reads of a comparison (the API's EvalComparison). */
export interface EvalComparisonLike {
  base: string;
  head: string;
  threshold: number;
  baseScore: number | null;
  headScore: number | null;
  tasks: Array<{ taskId: string; baseScore: number | null; headScore: number | null; delta: number | null; regressed: boolean; reason: string | null }>;
  regressions: Array<{ taskId: string; reason: string | null }>;
}

const num = (n: number | null) => (n === null ? '–' : n.toFixed(2));
const signed = (n: number | null) => (n === null ? '–' : `${n >= 0 ? '+' : ''}${n.toFixed(2)}`);

/** `evals/<name>.yaml` for a bare suite name; a path is kept as given. */
export const suitePathOf = (suite: string) => (suite.includes('/') ? suite : `evals/${suite.replace(/\.ya?ml$/, '')}.yaml`);

/** One graded task: pass/fail, score, model, and the first failing grader's reason. */
export function taskLine(t: EvalRunViewLike['tasks'][number]): string {
  const failing = t.grades.find((g) => !g.passed);
  const why = failing ? `  (${failing.type}: ${failing.detail.split('\n')[0]!.slice(0, 160)})` : '';
  return `${t.passed ? 'PASS' : 'FAIL'} ${t.taskId}  score ${num(t.score)}${t.model ? `  ${t.model}` : ''}${why}`;
}

export function evalRunSummaryLines(v: EvalRunViewLike): string[] {
  const config = [v.config.agent && `agent ${v.config.agent}`, v.config.model && `model ${v.config.model}`, v.config.effort && `effort ${v.config.effort}`].filter(Boolean).join(', ') || 'routed by the cost governor';
  const lines = [`eval run ${v.evalRunId} ${v.status}${v.simulated ? '  [simulated]' : ''}`, `suite:   ${v.suite} (${config})`];
  for (const t of v.tasks) lines.push(t.status === 'graded' ? taskLine(t) : `${t.status.toUpperCase()} ${t.taskId}`);
  lines.push(`score:   ${num(v.score)}  (${v.passed}/${v.total} tasks passed)`);
  if (v.failure) lines.push(`failure: ${v.failure}`);
  return lines;
}

export function comparisonLines(c: EvalComparisonLike): string[] {
  const lines = [`compare ${c.head} against ${c.base}: score ${num(c.baseScore)} → ${num(c.headScore)}`];
  for (const t of c.tasks) lines.push(`${t.regressed ? 'REGRESSED' : 'ok       '} ${t.taskId}  ${num(t.baseScore)} → ${num(t.headScore)} (${signed(t.delta)})${t.reason ? `  ${t.reason}` : ''}`);
  lines.push(c.regressions.length ? `${c.regressions.length} regression(s): ${c.regressions.map((r) => r.taskId).join(', ')}` : `no regressions (threshold ${c.threshold})`);
  return lines;
}
