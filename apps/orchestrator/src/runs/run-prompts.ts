import type { RunSpec } from '@headspace/contracts';
import { fixRunSections, sentBackByCheck } from './fix-run/fix-run.prompts';
import type { EscalationState, RunState, SessionPurpose } from './run.state';

/** The `Situation:` line of the system prompt for each kind of run session (scenario key offline). */
export const situationOf: Record<SessionPurpose, string> = {
  workshop: 'workshop',
  decompose: 'decompose',
  task: 'implement-task',
  qa: 'qa',
  review: 'review',
  escalation: 'escalation',
};

export const sessionKindOf: Record<SessionPurpose, 'workshop' | 'decomposition' | 'task' | 'qa' | 'review'> = {
  workshop: 'workshop',
  decompose: 'decomposition',
  task: 'task',
  qa: 'qa',
  review: 'review',
  // Gavin answers as PM (decomposition work), Robbo as the architect in workshop mode.
  escalation: 'workshop',
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

const rulings = (state: RunState, about: (e: EscalationState) => boolean) =>
  Object.values(state.escalations)
    .filter((e) => e.answer && e.note && about(e))
    .map((e) => `${e.subject}: ${e.note}`);

function escalationPrompt(state: RunState, escalationId: string, persona: string): string {
  const e = state.escalations[escalationId];
  const role = persona === 'gavin' ? 'As the PM, decide how the team goes on.' : 'As the architect, rule on it: is the spec wrong, the code, or the test?';
  return [
    `Escalation ${escalationId} from ${e.from}: ${e.subject}`,
    e.details,
    role,
    state.spec ? `## Specification\n\n${renderSpec(state.spec)}` : '',
    outputRule(
      '`{"escalation": {"decision": "continue" | "retry" | "stop" | "escalate", "note": "…"}}` — continue: go on without it (or accept QA as it is); retry: one more attempt or QA round, with your note as guidance; stop: end the run; escalate: pass it up.',
    ),
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The first user message of a run session: what to do, with the spec and the task in hand. */
export function promptFor(state: RunState, purpose: SessionPurpose, taskKey?: string, round?: number, escalationId?: string, persona = ''): string {
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
        state.rejections.length ? `## The operator turned down your earlier plan\n\n${bullet(state.rejections)}` : '',
        outputRule('`{"tasks": [{"key": "T1", "subject": "…", "description": "…", "pool": "backend", "acceptanceCriteria": ["…"], "dependsOn": []}]}`.'),
      ]
        .filter(Boolean)
        .join('\n\n');
    case 'task': {
      const t = state.tasks[taskKey!];
      const previous = Object.values(state.sessions).filter((s) => s.taskKey === taskKey && s.ended);
      return [
        `Task ${t.task.key}: ${t.task.subject}`,
        t.task.description,
        `Acceptance criteria:\n${bullet(t.task.acceptanceCriteria)}`,
        t.handoff
          ? `## Handoff From Your Previous Session\n\nYour previous session on this task filled its context and handed over. Carry on from here; the workspace has its work.\n\n${t.handoff}`
          : previous.length && !sentBackByCheck(state, taskKey!)
            ? `This is attempt ${previous.length + 1}; the earlier attempt did not finish. Check the workspace for what is already there.`
            : '',
        t.notes.length ? `Guidance for this attempt:\n${bullet(t.notes)}` : '',
        ...fixRunSections(state, taskKey!),
        `## Specification of the whole goal\n\n${renderSpec(state.spec!)}`,
        `Work in the current directory (your own git worktree). Run the project's tests before you finish. ${outputRule('nothing extra is needed; set `task_result.status` honestly.')}`,
      ]
        .filter(Boolean)
        .join('\n\n');
    }
    case 'qa': {
      const qaRound = round ?? state.qaRounds;
      const merged = state.taskOrder.filter((k) => state.tasks[k].status === 'merged').map((k) => `${k}: ${state.tasks[k].task.subject} (by ${state.tasks[k].persona})`);
      const qaRulings = rulings(state, (e) => e.about?.startsWith('qa-') ?? false);
      return [
        `QA round ${qaRound}. Test the build against the specification: write tests for every acceptance criterion (keep them in the project's test folder), run the whole test suite, and judge each failure.`,
        `## Specification\n\n${renderSpec(state.spec!)}`,
        `## Delivered tasks\n\n${bullet(merged)}`,
        qaRulings.length ? `## Rulings on earlier failures\n\n${bullet(qaRulings)}` : '',
        outputRule(
          '`{"passed": true|false, "failures": [{"test": "…", "message": "…", "decision": "send-back" | "fix-test" | "escalate", "taskKey": "T1", "details": "what must change"}]}` — send-back when the code is wrong (name the task), fix-test when your test was wrong, escalate when the spec is ambiguous.',
        ),
      ]
        .filter(Boolean)
        .join('\n\n');
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
    case 'escalation':
      return escalationPrompt(state, escalationId!, persona);
  }
}
