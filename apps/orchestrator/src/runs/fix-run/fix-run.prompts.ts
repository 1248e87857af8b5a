import { regressionKeyOf, type RegressionCheck, type RunState } from '../run.state';

const block = (output: string) => `\`\`\`text\n${output.trim() || '(no output)'}\n\`\`\``;
const lastCheck = (state: RunState, stage: RegressionCheck['stage']) => state.regressionChecks.findLast((c) => c.stage === stage);
const ran = (c: RegressionCheck) => `\`${c.command}\` exited ${c.exitCode} at ${c.commit.slice(0, 12)}`;

function regressionTaskSections(state: RunState, command: string): string[] {
  const failed = lastCheck(state, 'before-fix');
  return [
    [
      `## This is a fix run: write the failing regression test first`,
      `Write a test that reproduces the reported exception. It must FAIL on the code as it is now, and its failure must name the exception (its type and message), so the failure shows it is this bug and nothing else. Do not fix the code: the next task does, against your test.`,
      `After your work is merged, the orchestrator runs \`${command}\` on the run branch. If the command passes, your test does not reproduce the bug and the task comes back to you.`,
    ].join('\n\n'),
    failed && !failed.ok ? `## Your previous test did not reproduce the bug\n\n${ran(failed)} (it must fail):\n\n${block(failed.output)}` : '',
  ];
}

function fixTaskSections(state: RunState, command: string): string[] {
  const before = lastCheck(state, 'before-fix');
  const after = lastCheck(state, 'after-fix');
  const files = before?.testFiles.length ? before.testFiles.map((f) => `- ${f}`).join('\n') : '- (see the run branch)';
  return [
    [
      `## The regression test reproduces the bug`,
      `Fix the code so that \`${command}\` passes. Do not weaken, skip or delete the regression test:`,
      files,
      before ? `Before the fix, ${ran(before)}:\n\n${block(before.output)}` : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
    after && !after.ok ? `## Your previous fix did not pass\n\nAfter it was merged, ${ran(after)}:\n\n${block(after.output)}` : '',
  ];
}

/** What a fix run adds to a task's prompt: the regression task's rules and its last failed check, or the test and outputs the fix works from. */
export function fixRunSections(state: RunState, taskKey: string): string[] {
  const key = regressionKeyOf(state);
  const command = state.started?.fix?.testCommand;
  if (!key || !command) return [];
  const sections = taskKey === key ? regressionTaskSections(state, command) : fixTaskSections(state, command);
  return sections.filter(Boolean);
}

/** A fix run's task came back from a failed check (not from an unfinished attempt). */
export const sentBackByCheck = (state: RunState, taskKey: string): boolean => regressionKeyOf(state) !== undefined && (state.tasks[taskKey]?.merges ?? 0) > 0;
