import { runShell, scrubEnv } from '@headspace/agent-runtime';
import type { EvalGrade, EvalGrader } from '@headspace/contracts';
import { tailOf, type SandboxFor } from '../../runs/fix-run/regression-check';

type CommandGrader = Extract<EvalGrader, { type: 'command' }>;

/** Read from the command before redaction and the cut to the tail. */
const CAPTURE_CHARS = 64_000;
const OUTPUT_CHARS = 4_000;

/**
 * A task's test command, run by the orchestrator in the task's checkout the way a fix run's
 * regression check is (the team's sandbox, a cleared environment, a time limit): exit 0 passes.
 */
export class CommandGraderRunner {
  constructor(
    private readonly sandboxFor: SandboxFor,
    private readonly timeoutMs: number,
  ) {}

  async grade(grader: CommandGrader, at: { sessionId: string; team: string; persona: string; dir: string }, signal?: AbortSignal): Promise<EvalGrade> {
    const sandbox = await this.sandboxFor({ sessionId: at.sessionId, team: at.team, persona: at.persona }, at.dir);
    const run = await runShell(grader.command, { cwd: at.dir, env: scrubEnv(process.env), timeoutMs: this.timeoutMs, maxOutputChars: CAPTURE_CHARS, ...(signal ? { signal } : {}), ...(sandbox ? { sandbox } : {}) });
    if (run.aborted) throw new Error(`The grader command of ${at.sessionId} was stopped before it finished`);
    const exitCode = run.exitCode ?? (run.timedOut ? 124 : 128);
    const passed = exitCode === 0 && !run.timedOut;
    const output = tailOf(run.timedOut ? `${run.output}\n[timed out after ${Math.round(this.timeoutMs / 1000)}s]` : run.output, OUTPUT_CHARS);
    return { type: 'command', weight: grader.weight, score: passed ? 1 : 0, passed, detail: `\`${grader.command}\` exited ${exitCode}${output ? `\n${output}` : ''}` };
  }
}
