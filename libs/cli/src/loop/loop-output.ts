/** What the CLI reads of a loop's view (the API's LoopView). */
export interface LoopIterationLike {
  iteration: number;
  status: 'running' | 'ended';
  agentStatus: string | null;
  summary: string | null;
  checkpoint: string | null;
  diffLines: number | null;
  check: { exitCode: number; passed: boolean; signature: string | null } | null;
  learnings: string[];
}

export interface LoopViewLike {
  loopId: string;
  status: 'running' | 'succeeded' | 'stopped' | 'failed';
  simulated: boolean;
  branch: string | null;
  dir: string | null;
  iterations: LoopIterationLike[];
  stopReason: string | null;
  stopDetail: string | null;
  revertedTo: string | null;
  costUsd: string | null;
  limits: { maxIterations: number };
}

/** One line for an ended iteration: what the agent said, the check, the lines changed, the checkpoint and what it learned. */
export function iterationLine(i: Pick<LoopIterationLike, 'iteration' | 'agentStatus' | 'check' | 'diffLines' | 'checkpoint' | 'learnings'>): string {
  const check = i.check ? (i.check.passed ? 'check passed' : `check failed (exit ${i.check.exitCode}, signature ${i.check.signature})`) : 'no check';
  const learned = i.learnings.length ? `; learned: ${i.learnings.join(' | ')}` : '';
  return `iteration ${i.iteration} ended (${i.agentStatus ?? 'none'}): ${check}; ${i.diffLines ?? 0} lines changed; checkpoint ${(i.checkpoint ?? '').slice(0, 12)}${learned}`;
}

/** The closing block: how the loop ended and why, its iterations, where the result is, and the cost (labelled simulated). */
export function loopSummaryLines(v: LoopViewLike): string[] {
  const mark = v.status === 'succeeded' ? '✔' : v.status === 'running' ? '…' : '✖';
  const lines = [`${mark} loop ${v.loopId} ${v.status}${v.stopReason ? ` (${v.stopReason})` : ''}${v.simulated ? '  [simulated]' : ''}`];
  if (v.stopDetail) lines.push(`reason:  ${v.stopDetail}`);
  lines.push(`iterations: ${v.iterations.length} of at most ${v.limits.maxIterations}`);
  for (const i of v.iterations) lines.push(`  ${i.status === 'ended' ? iterationLine(i) : `iteration ${i.iteration} running`}`);
  if (v.revertedTo) lines.push(`reverted to checkpoint ${v.revertedTo.slice(0, 12)}`);
  if (v.branch && v.dir) lines.push(`result:  branch ${v.branch} in ${v.dir}`);
  lines.push(`cost:    ${v.costUsd ? `$${v.costUsd}${v.simulated ? ' (simulated)' : ''}` : 'unknown'}`);
  return lines;
}
