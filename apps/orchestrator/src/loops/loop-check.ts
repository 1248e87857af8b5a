import { runShell, scrubEnv } from '@headspace/agent-runtime';
import type { EventData, loopIterationEnded } from '@headspace/contracts';
import { tailOf, type SandboxFor } from '../runs/fix-run/regression-check';
import { errorSignature } from './error-signature';

export type LoopCheckResult = NonNullable<EventData<typeof loopIterationEnded>['check']>;

/** Read from the command before redaction and the cut to the tail. */
const CAPTURE_CHARS = 64_000;
const OUTPUT_CHARS = 8_000;

/**
 * A loop's check command, run by the orchestrator in the loop's worktree the way an agent's Bash
 * tool runs one (the team's sandbox, a cleared environment, a time limit), as a fix run's
 * regression check is. A failure carries the signature of its output for the same-error monitor.
 */
export class LoopCheck {
  constructor(
    private readonly sandboxFor: SandboxFor,
    private readonly timeoutMs: number,
  ) {}

  async run(check: { loopId: string; iteration: number; team: string; persona: string; worktree: string; command: string }, signal?: AbortSignal): Promise<LoopCheckResult> {
    const sandbox = await this.sandboxFor({ sessionId: `${check.loopId}.check.i${check.iteration}`, team: check.team, persona: check.persona }, check.worktree);
    const run = await runShell(check.command, { cwd: check.worktree, env: scrubEnv(process.env), timeoutMs: this.timeoutMs, maxOutputChars: CAPTURE_CHARS, ...(signal ? { signal } : {}), ...(sandbox ? { sandbox } : {}) });
    if (run.aborted) throw new Error(`The check of loop ${check.loopId} was stopped before it finished`);
    const exitCode = run.exitCode ?? (run.timedOut ? 124 : 128);
    const output = tailOf(run.timedOut ? `${run.output}\n[timed out after ${Math.round(this.timeoutMs / 1000)}s]` : run.output, OUTPUT_CHARS);
    const passed = exitCode === 0 && !run.timedOut;
    return { exitCode, passed, signature: passed ? null : errorSignature(output), output };
  }
}
