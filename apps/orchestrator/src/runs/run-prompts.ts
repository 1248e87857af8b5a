import type { RunSpec } from '@headspace/contracts';
import type { RunState, SessionPurpose } from './run.decider';

/** The `Situation:` line of the system prompt for each kind of run session (scenario key offline). */
export const situationOf: Record<SessionPurpose, string> = {
  workshop: 'workshop',
  decompose: 'decompose',
  task: 'implement-task',
  qa: 'qa',
  review: 'review',
};

export const sessionKindOf: Record<SessionPurpose, 'workshop' | 'decomposition' | 'task' | 'qa' | 'review'> = {
  workshop: 'workshop',
  decompose: 'decomposition',
  task: 'task',
  qa: 'qa',
  review: 'review',
};

const bullet = (items: readonly string[]) => items.map((i) => `- ${i}`).join('\n') || '- (none)';

export function renderSpec(spec: RunSpec): string {
  return [
    `Goal: ${spec.goal}`,
    `Acceptance criteria:\n${bullet(spec.acceptanceCriteria)}`,
    `Constraints:\n${bullet(spec.constraints)}`,
    `Out of scope:\n${bullet(spec.outOfScope)}`,
  ].join('\n\n');
}

const outputRule = (shape: string) =>
  `When you are done, end with your reflection JSON (as the reflection protocol says) and put this phase's result in \`task_result.output\`: ${shape}`;

/** The first user message of a run session: what to do, with the spec and the task in hand. */
export function promptFor(state: RunState, purpose: SessionPurpose, taskKey?: string, round?: number): string {
  const started = state.started!;
  switch (purpose) {
    case 'workshop': {
      const answers = state.answers.map((a, i) => `Operator answer ${i + 1}: ${a}`).join('\n\n');
      return [
        `Workshop this goal with the operator into a specification the team can build and test against.`,
        `The workspace is the project as it is now; read what you need. Do not change any file.`,
        `## Goal\n\n${started.goal}`,
        answers ? `## Answers so far\n\n${answers}` : '',
        outputRule(
          '`{"questions": ["…"]}` when something essential is unclear (at most 3 questions), otherwise `{"spec": {"goal": "…", "acceptanceCriteria": ["…"], "constraints": ["…"], "outOfScope": ["…"]}}`.',
        ),
      ]
        .filter(Boolean)
        .join('\n\n');
    }
    case 'decompose':
      return [
        `Split this specification into tasks for the builders. Each task has a key (T1, T2, …), a subject, a description, the skill pool that should build it (backend, frontend, database, integration), acceptance criteria and the keys it depends on. Keep tasks small enough for one session; no cycles.`,
        `## Specification\n\n${renderSpec(state.spec!)}`,
        outputRule('`{"tasks": [{"key": "T1", "subject": "…", "description": "…", "pool": "backend", "acceptanceCriteria": ["…"], "dependsOn": []}]}`.'),
      ].join('\n\n');
    case 'task': {
      const t = state.tasks[taskKey!];
      const previous = Object.values(state.sessions).filter((s) => s.taskKey === taskKey && s.ended);
      return [
        `Task ${t.task.key}: ${t.task.subject}`,
        t.task.description,
        `Acceptance criteria:\n${bullet(t.task.acceptanceCriteria)}`,
        previous.length ? `This is attempt ${previous.length + 1}; the earlier attempt did not finish. Check the workspace for what is already there.` : '',
        `## Specification of the whole goal\n\n${renderSpec(state.spec!)}`,
        `Work in the current directory (your own git worktree). Run the project's tests before you finish. ${outputRule('nothing extra is needed; set `task_result.status` honestly.')}`,
      ]
        .filter(Boolean)
        .join('\n\n');
    }
    case 'qa': {
      const qaRound = round ?? state.qaRounds;
      const merged = state.taskOrder.filter((k) => state.tasks[k].status === 'merged').map((k) => `${k}: ${state.tasks[k].task.subject} (by ${state.tasks[k].persona})`);
      return [
        `QA round ${qaRound}. Test the build against the specification: write tests for every acceptance criterion (keep them in the project's test folder), run the whole test suite, and judge each failure.`,
        `## Specification\n\n${renderSpec(state.spec!)}`,
        `## Delivered tasks\n\n${bullet(merged)}`,
        outputRule(
          '`{"passed": true|false, "failures": [{"test": "…", "message": "…", "decision": "send-back" | "fix-test" | "escalate", "taskKey": "T1", "details": "what must change"}]}` — send-back when the code is wrong (name the task), fix-test when your test was wrong, escalate when the spec is ambiguous.',
        ),
      ].join('\n\n');
    }
    case 'review': {
      const qa = state.qaReports.map((r) => `round ${r.round}: ${r.passed ? 'passed' : `${r.failures.length} failure(s)`}`);
      return [
        `Review the team's work in a fresh session: compare the deliverables in the workspace with the specification and say whether the goal is done.`,
        `## Specification\n\n${renderSpec(state.spec!)}`,
        `## Tasks\n\n${bullet(state.taskOrder.map((k) => `${k}: ${state.tasks[k].task.subject} — ${state.tasks[k].status}${state.tasks[k].persona ? ` (${state.tasks[k].persona})` : ''}`))}`,
        `## QA\n\n${bullet(qa)}`,
        outputRule('`{"verdict": "done" | "issues", "report": "…", "issues": ["…"]}`.'),
      ].join('\n\n');
    }
  }
}
