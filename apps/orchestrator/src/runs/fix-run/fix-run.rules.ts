import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { sentBackBy, type RegressionCheck, type RunEvent, type RunState, type Started } from '../run.state';

/** What running a fix run's test command gave (fix-run/regression-check.ts); `ok` is the decider's to judge. */
export interface RegressionCheckResult {
  stage: RegressionCheck['stage'];
  commit: string;
  command: string;
  exitCode: number;
  /** Killed at the time limit: proves nothing either way, so it never counts as ok. */
  timedOut: boolean;
  testFiles: string[];
  output: string;
}

const invalid = (message: string, field: string) => new HeadspaceError(ErrorCodes.runTasksInvalid, message, { field });

/** A fix run is a v1 run whose tasks hold the regression task, first (depending on nothing), and at least one task that fixes. */
export function checkFixRun(data: Omit<Started, 'startedAt'>): void {
  const key = data.fix!.regressionTaskKey;
  if (data.mode !== 'v1') throw invalid('A fix run is a v1 run: its tasks (the regression test, then the fix) are given', 'mode');
  const tasks = data.tasks ?? [];
  const index = tasks.findIndex((t) => t.key === key);
  if (index < 0) throw invalid(`The regression task "${key}" is not among the tasks`, 'fix.regressionTaskKey');
  if (tasks.length < 2) throw invalid(`A fix run needs a task that fixes the bug besides the regression task "${key}"`, 'tasks');
  if (tasks[index].dependsOn.length) throw invalid(`The regression task "${key}" comes first: it cannot depend on other tasks`, `tasks.${index}.dependsOn`);
}

/** Before the fix the command must fail (the test reproduces the bug); after it, it must pass. */
const passes = (r: RegressionCheckResult) => (r.stage === 'before-fix' ? r.exitCode !== 0 : r.exitCode === 0) && !r.timedOut;

/** The check, and when it failed with no attempt left for the work it sends back, the run's failure with the reason. */
export function regressionCheckEvents(state: RunState, r: RegressionCheckResult, now: string): RunEvent[] {
  const runId = state.started!.runId;
  const ok = passes(r);
  const events: RunEvent[] = [
    { type: 'run.regression-checked', data: { runId, stage: r.stage, commit: r.commit, command: r.command, exitCode: r.exitCode, ok, testFiles: r.testFiles.slice(0, 100), output: r.output.slice(-8_000), at: now } },
  ];
  if (ok) return events;
  const back = sentBackBy(state, r.stage);
  const spent = back.filter((k) => state.tasks[k].attempts >= state.tasks[k].maxAttempts);
  if (back.length && !spent.length) return events;
  events.push({ type: 'run.failed', data: { runId, reason: failureReason(state, r, spent.length ? spent : back), at: now } });
  return events;
}

function failureReason(state: RunState, r: RegressionCheckResult, keys: string[]): string {
  const how = r.timedOut ? 'timed out' : `exited ${r.exitCode}`;
  const tries = keys.map((k) => `${k} (${state.tasks[k].attempts} attempt${state.tasks[k].attempts === 1 ? '' : 's'})`).join(', ') || 'no task left to send back';
  const at = r.commit.slice(0, 12);
  return r.stage === 'before-fix'
    ? `The regression test does not reproduce the bug: \`${r.command}\` ${how} at ${at} before the fix; ${tries} did not write a test that fails`
    : `The fix does not pass the regression test: \`${r.command}\` ${how} at ${at} after the fix; ${tries} did not make it pass`;
}
