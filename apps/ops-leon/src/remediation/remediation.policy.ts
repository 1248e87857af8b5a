import type { ExceptionSeverity } from '@headspace/contracts';
import { z } from 'zod';
import type { EscalationLevel } from '../groups/group.decider';
import type { TriageVerdict } from '../triage/triage-verdict';

/**
 * Leon's remediation decisions (ADR 0024), pure: what a triaged group, a judgement up the
 * escalation ladder, a fix run's end and a verification window each lead to. The worker and the
 * consumers do the I/O around them.
 */

/** What triage said about a group (its `group.triaged` event), as remediation reads it. */
export type TriageFacts = Pick<TriageVerdict, 'severity' | 'domain' | 'persona' | 'autoFixable' | 'complex' | 'hypothesis'> & { approach: string };

export interface ProjectFacts {
  project: string;
  team?: string;
  trusted: boolean;
}

export type TrustedMaxSeverity = Exclude<ExceptionSeverity, 'noise'>;

export type Plan =
  | { kind: 'nothing'; reason: string }
  | { kind: 'escalate'; level: EscalationLevel; reason: string }
  /** Trusted project, low severity: proposed with approvalSkipped 'trusted' and started at once. */
  | { kind: 'fix-trusted'; approach: string }
  | { kind: 'ask-approval'; approach: string };

const RANK: Record<ExceptionSeverity, number> = { noise: 0, warning: 1, error: 2, critical: 3 };

const noTeam = (p: ProjectFacts): Plan => ({ kind: 'escalate', level: 'operator', reason: `project ${p.project} has no team to fix it: set one (update-project team)` });

/** A fix Leon may start: without an approval only on a trusted project and at most `trustedMax`. */
export function planFix(triage: TriageFacts, project: ProjectFacts, trustedMax: TrustedMaxSeverity, approach: string): Plan {
  if (!project.team) return noTeam(project);
  if (project.trusted && RANK[triage.severity] <= RANK[trustedMax]) return { kind: 'fix-trusted', approach };
  return { kind: 'ask-approval', approach };
}

/** After `group.triaged`: noise was dismissed by triage; complex or not auto-fixable climbs the ladder from Gavin. */
export function planAfterTriage(triage: TriageFacts, project: ProjectFacts, trustedMax: TrustedMaxSeverity): Plan {
  if (triage.severity === 'noise') return { kind: 'nothing', reason: 'noise is dismissed by triage' };
  if (!project.team) return noTeam(project);
  if (triage.complex) return { kind: 'escalate', level: 'gavin', reason: `complex: ${triage.hypothesis || 'triage called it architectural or complex'}` };
  if (!triage.autoFixable) return { kind: 'escalate', level: 'gavin', reason: `not auto-fixable: ${triage.hypothesis || 'triage could not say how to fix it'}` };
  return planFix(triage, project, trustedMax, triage.approach);
}

/** Gavin's or Robbo's answer to "can it be fixed as a task?". */
export const judgementSchema = z.object({
  decision: z.enum(['fix', 'escalate']),
  approach: z.string().max(5_000).default(''),
  reason: z.string().max(2_000).default(''),
});
export type Judgement = z.output<typeof judgementSchema>;

/** The first JSON object in a model's text (it may wrap it in prose or a code fence), or null when there is none usable. */
export function parseJudgement(text: string): Judgement | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const parsed = judgementSchema.safeParse(JSON.parse(text.slice(start, end + 1)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export type JudgingLevel = Exclude<EscalationLevel, 'operator'>;
const NEXT: Record<JudgingLevel, EscalationLevel> = { gavin: 'robbo', robbo: 'operator' };
const NAME: Record<JudgingLevel, string> = { gavin: 'Gavin', robbo: 'Robbo' };

/**
 * One rung of the ladder (seed 000 §4.7): a fix → proposed like any fix (approval unless trusted);
 * escalate, or no usable answer (refused by the governor, unparsable) → the next rung.
 */
export function planAfterJudgement(
  level: JudgingLevel,
  answer: { judgement: Judgement } | { unanswered: string },
  triage: TriageFacts,
  project: ProjectFacts,
  trustedMax: TrustedMaxSeverity,
): Plan {
  if (!project.team) return noTeam(project);
  if ('unanswered' in answer) return { kind: 'escalate', level: NEXT[level], reason: `${NAME[level]} gave no usable answer: ${answer.unanswered}` };
  const { decision, approach, reason } = answer.judgement;
  if (decision === 'escalate') return { kind: 'escalate', level: NEXT[level], reason: `${NAME[level]}: ${reason || 'not a task for the team'}` };
  return planFix(triage, project, trustedMax, approach || triage.approach);
}

/** The question put to Gavin (light model) or Robbo (deep model) about an escalated group. */
export function escalationQuestion(level: JudgingLevel, group: { type: string; title: string; culprit: string; project: string }, triage: TriageFacts, why: string) {
  const role = level === 'gavin' ? 'the team lead who turns problems into tasks' : 'the architect who decides what needs a design change';
  return {
    system: `You are ${NAME[level]}, ${role}. Leon (ops) escalated a production exception to you. Answer with one JSON object only: {"decision": "fix" | "escalate", "approach": "<how to fix it as one task>", "reason": "<why>"}.`,
    prompt: [
      `Project: ${group.project}`,
      `Exception: ${group.type}: ${group.title}`,
      `Culprit: ${group.culprit || 'unknown'}`,
      `Severity: ${triage.severity}; domain: ${triage.domain}`,
      `Hypothesis: ${triage.hypothesis || 'none'}`,
      `Approach proposed so far: ${triage.approach || 'none'}`,
      `Why it was escalated: ${why}`,
      `Can the team fix it as a task (decision "fix", with the approach), or must it go up (decision "escalate")?`,
    ].join('\n'),
  };
}

// ---- fix runs --------------------------------------------------------------------------------------

/** `fix-<first 12 hex of the group id>-<n>`: the n-th fix run of a group (a run id is 1-63 lowercase characters). */
export const fixRunId = (groupId: string, n: number) => `fix-${groupId.replace(/^grp_/, '').slice(0, 12)}-${n}`;
export const isFixRunId = (runId: string) => /^fix-[0-9a-f]{12}-\d+$/.test(runId);

export type RunOutcome = { kind: 'commit'; commit: string } | { kind: 'escalate'; level: 'gavin'; reason: string };

/** A fix run's end: done → the fix is committed at the run's head; anything else goes to Gavin. */
export function afterRun(event: { type: 'run.completed'; runId: string; verdict: 'done' | 'issues'; headCommit: string } | { type: 'run.failed'; runId: string; reason: string }): RunOutcome {
  if (event.type === 'run.failed') return { kind: 'escalate', level: 'gavin', reason: `fix run ${event.runId} failed: ${event.reason}` };
  if (event.verdict !== 'done' || !event.headCommit) return { kind: 'escalate', level: 'gavin', reason: `fix run ${event.runId} ended with issues` };
  return { kind: 'commit', commit: event.headCommit };
}

export type Verification = 'wait' | 'verify' | 'did-not-hold' | 'unverified';

/**
 * A committed fix is VERIFIED once its after-fix check passed and its window went by with no event
 * of its release; an event of its release inside the window means it did not hold.
 */
export function verification(f: { afterFixOk: boolean | null; fixReleaseSeen: boolean; committedAtMs: number; windowSeconds: number; nowMs: number }): Verification {
  if (f.afterFixOk !== true) return 'unverified';
  if (f.fixReleaseSeen) return 'did-not-hold';
  return f.nowMs >= f.committedAtMs + f.windowSeconds * 1_000 ? 'verify' : 'wait';
}
