import { escalationAnswers, qaFailureSchema, runTaskSchema, specSchema, type QaFailure, type RunSpec, type RunTask } from '@headspace/contracts';
import { z } from 'zod';
import { checkTaskGraph } from './task-graph';
import type { EscalationAnswer, SessionPurpose } from './run.state';

/** What a run session produced for its phase, read from `task_result.output` of its reflection. */
export type PhaseOutput =
  | { kind: 'spec'; spec: RunSpec }
  | { kind: 'questions'; questions: string[] }
  | { kind: 'tasks'; tasks: RunTask[] }
  | { kind: 'task'; status: string }
  | { kind: 'qa'; passed: boolean; failures: QaFailure[] }
  | { kind: 'review'; verdict: 'done' | 'issues'; report: string; issues: string[] }
  | { kind: 'escalation'; decision: EscalationAnswer; note?: string }
  | { kind: 'invalid'; error: string };

const workshopOutput = z.union([
  z.object({ spec: specSchema }),
  z.object({ questions: z.array(z.string().min(1).max(2_000)).min(1).max(20) }),
]);
const decomposeOutput = z.object({ tasks: z.array(runTaskSchema).min(1).max(200) });
const qaOutput = z.object({ passed: z.boolean(), failures: z.array(qaFailureSchema).max(100).default([]) });
const reviewOutput = z.object({ verdict: z.enum(['done', 'issues']), report: z.string().max(20_000).default(''), issues: z.array(z.string().max(2_000)).max(50).default([]) });

const escalationOutput = z.object({ escalation: z.object({ decision: z.enum(escalationAnswers), note: z.string().max(5_000).optional() }) });

const issuesText = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.') || 'output'}: ${i.message}`).join('; ');

export function parsePhaseOutput(purpose: SessionPurpose, reflection: Record<string, unknown> | undefined): PhaseOutput {
  const taskResult = (reflection?.task_result ?? undefined) as Record<string, unknown> | undefined;
  if (purpose === 'task') return { kind: 'task', status: typeof taskResult?.status === 'string' ? taskResult.status : 'unknown' };
  const output = taskResult?.output;
  if (output === undefined) return { kind: 'invalid', error: 'The session ended without task_result.output in its reflection' };
  switch (purpose) {
    case 'workshop': {
      const parsed = workshopOutput.safeParse(output);
      if (!parsed.success) return { kind: 'invalid', error: issuesText(parsed.error) };
      return 'spec' in parsed.data ? { kind: 'spec', spec: parsed.data.spec } : { kind: 'questions', questions: parsed.data.questions };
    }
    case 'decompose': {
      const parsed = decomposeOutput.safeParse(output);
      if (!parsed.success) return { kind: 'invalid', error: issuesText(parsed.error) };
      try {
        checkTaskGraph(parsed.data.tasks);
      } catch (error) {
        return { kind: 'invalid', error: (error as Error).message };
      }
      return { kind: 'tasks', tasks: parsed.data.tasks };
    }
    case 'qa': {
      const parsed = qaOutput.safeParse(output);
      return parsed.success ? { kind: 'qa', ...parsed.data } : { kind: 'invalid', error: issuesText(parsed.error) };
    }
    case 'review': {
      const parsed = reviewOutput.safeParse(output);
      return parsed.success ? { kind: 'review', ...parsed.data } : { kind: 'invalid', error: issuesText(parsed.error) };
    }
    case 'escalation': {
      const parsed = escalationOutput.safeParse(output);
      return parsed.success ? { kind: 'escalation', ...parsed.data.escalation } : { kind: 'invalid', error: issuesText(parsed.error) };
    }
  }
}
