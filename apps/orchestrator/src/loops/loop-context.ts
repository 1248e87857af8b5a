import type { LoopState } from './loop.decider';

/** How much of the last check failure the context file quotes (its tail: where test runners print failures). */
const FAILURE_CHARS = 3_000;

/**
 * The loop-context file (`.headspace/loop-context.md`) for iteration `iteration`: goal, acceptance
 * gate, iteration count, the learnings of earlier iterations with their source, what was tried and
 * how it failed, and the last check failure. Written from the loop's stream before each session,
 * so it is the same after a crash and no agent can lose what earlier ones learned by editing it.
 */
export function renderLoopContext(state: LoopState, iteration: number): string {
  const s = state.started!;
  const ended = state.iterations.flatMap((i) => (i.ended ? [i.ended] : []));
  const learnings = ended.flatMap((e) => e.learnings.map((l) => `- ${l} (iteration ${e.iteration})`));
  const tried = ended.map((e) => {
    const check = e.check ? (e.check.passed ? 'the check passed' : `the check failed (exit ${e.check.exitCode}, error signature ${e.check.signature})`) : 'no check ran';
    return `- Iteration ${e.iteration} (${e.agentStatus}): ${e.summary || 'no summary'} — ${check}; ${e.diffLines} lines changed.`;
  });
  const lastFailure = ended.findLast((e) => e.check && !e.check.passed)?.check;
  return [
    '# Loop context',
    '',
    'Written by Headspace before every iteration from the loop’s record; your edits to this file are not kept.',
    '',
    '## Goal',
    '',
    s.task,
    '',
    '## Acceptance',
    '',
    s.check ? `The loop succeeds when the check command passes (exit 0) after an iteration: \`${s.check}\`` : 'No check command: the loop succeeds when you report the task completed in your reflection.',
    '',
    '## Iteration',
    '',
    `This is iteration ${iteration} of at most ${s.limits.maxIterations}. Each iteration may change at most ${s.limits.maxDiffLines} lines; the loop also stops when the check fails with the same error ${s.limits.sameErrorLimit} times in a row.`,
    '',
    '## Learnings from earlier iterations',
    '',
    ...(learnings.length ? learnings : ['- none yet']),
    '',
    '## Tried before',
    '',
    ...(tried.length ? tried : ['- nothing yet: this is the first iteration']),
    ...(lastFailure ? ['', '## Last check failure', '', '```text', lastFailure.output.slice(-FAILURE_CHARS), '```'] : []),
    '',
  ].join('\n');
}
