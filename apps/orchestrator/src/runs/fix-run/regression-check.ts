import { runShell, scrubEnv, type Sandbox } from '@headspace/agent-runtime';
import { processSecretRedactor } from '@headspace/contracts';
import type { RegressionCheckPort, RunWorkspacePort } from '../run-ports';

/** What the event keeps of a check's output: its end, where test runners print the failures and the totals. */
export const CHECK_OUTPUT_CHARS = 8_000;
/** Read from the command before redaction and the cut to the tail. */
const CAPTURE_CHARS = 64_000;

/** The sandbox a team's agents run their commands in, for a process started on a persona's behalf; undefined: unsandboxed (HS_SANDBOX=off or the team's mode). */
export type SandboxFor = (who: { sessionId: string; team: string; persona: string }, workspace: string) => Promise<Sandbox | undefined>;

/** The last `max` characters of redacted output, saying how much came before. */
export function tailOf(output: string, max = CHECK_OUTPUT_CHARS): string {
  const text = processSecretRedactor().text(output);
  if (text.length <= max) return text;
  const note = `[${text.length - max} earlier characters omitted]\n`;
  return note + text.slice(text.length - max + note.length);
}

/**
 * A fix run's test command, run by the orchestrator itself the way an agent's Bash tool runs one:
 * in a fresh checkout of the commit, in the team's sandbox, under a time limit. Its output is
 * redacted and cut to its tail before anyone records it.
 */
export class SandboxedRegressionCheck implements RegressionCheckPort {
  constructor(
    private readonly workspace: RunWorkspacePort,
    private readonly sandboxFor: SandboxFor,
    private readonly timeoutMs: number,
  ) {}

  async run(check: { runId: string; team: string; persona: string; commit: string; command: string; name: string }, signal?: AbortSignal) {
    const checkout = await this.workspace.checkoutAt(check.runId, check.commit, check.name);
    try {
      const sandbox = await this.sandboxFor({ sessionId: `${check.runId}.check.${check.name}`, team: check.team, persona: check.persona }, checkout.dir);
      const run = await runShell(check.command, { cwd: checkout.dir, env: scrubEnv(process.env), timeoutMs: this.timeoutMs, maxOutputChars: CAPTURE_CHARS, ...(signal ? { signal } : {}), ...(sandbox ? { sandbox } : {}) });
      if (run.aborted) throw new Error(`Regression check ${check.name} of run ${check.runId} was stopped before it finished`);
      const exitCode = run.exitCode ?? (run.timedOut ? 124 : 128);
      const output = run.timedOut ? `${run.output}\n[timed out after ${Math.round(this.timeoutMs / 1000)}s]` : run.output;
      return { exitCode, timedOut: run.timedOut, output: tailOf(output) };
    } finally {
      await checkout.remove();
    }
  }
}
