import type { QaFailure, RunTask } from '@headspace/contracts';
import type { PhaseOutput } from './run-output';
import { qaMergeKey, type AddedTask, type EscalationLevel, type RunEvent, type RunSessionState, type RunState, type Started } from './run.state';

export const AUTO_OPERATOR = 'auto-operator';
export const AUTO_ANSWER = 'No further constraints; use the goal as written.';

export interface SessionOutcome {
  exitReason: string;
  summary: string;
  output: PhaseOutput;
  files: string[];
  /** A task session whose agent gave its task back (release_task): a failed attempt, whatever the session's end. */
  gaveBack?: { reason: string };
  /** v2: the plan-approval the proposed tasks wait on. */
  approvalId?: string;
  now: string;
}

const NEXT_LEVEL: Record<EscalationLevel, EscalationLevel | undefined> = { gavin: 'robbo', robbo: 'operator', operator: undefined };

export function acceptSpecEvents(started: Started, by: string, now: string): RunEvent[] {
  const events: RunEvent[] = [{ type: 'run.spec-accepted', data: { runId: started.runId, by, at: now } }];
  if (started.mode === 'v1' && started.tasks?.length) {
    events.push({ type: 'run.tasks-added', data: { runId: started.runId, tasks: started.tasks.map((t) => ({ ...t, origin: 'plan' as const })), at: now } });
  }
  return events;
}

export function approveTasksEvents(started: Started, tasks: RunTask[], by: string, edited: boolean, now: string): RunEvent[] {
  return [
    { type: 'run.tasks-approved', data: { runId: started.runId, tasks, by, edited, at: now } },
    { type: 'run.tasks-added', data: { runId: started.runId, tasks: tasks.map((t) => ({ ...t, origin: 'plan' as const })), at: now } },
  ];
}

/** A fresh escalation id: the base, or the base with a number when an earlier one used it. */
function escalationId(state: RunState, base: string): string {
  if (!state.escalations[base]) return base;
  let n = 2;
  while (state.escalations[`${base}-${n}`]) n++;
  return `${base}-${n}`;
}

export function escalate(
  state: RunState,
  e: { base: string; from: string; to: EscalationLevel; subject: string; details: string; about?: string },
  now: string,
): Extract<RunEvent, { type: 'run.escalated' }> {
  return {
    type: 'run.escalated',
    data: {
      runId: state.started!.runId,
      escalationId: escalationId(state, e.base),
      from: e.from,
      to: e.to,
      subject: e.subject.slice(0, 500),
      details: e.details.slice(0, 10_000),
      ...(e.about ? { about: e.about } : {}),
      at: now,
    },
  };
}

/** An answer to an escalation; "escalate" passes it up a level, "stop" ends the run. */
export function answerEscalationEvents(state: RunState, id: string, answer: 'continue' | 'retry' | 'stop' | 'escalate', note: string | undefined, by: string, now: string): RunEvent[] {
  const runId = state.started!.runId;
  const e = state.escalations[id];
  const events: RunEvent[] = [{ type: 'run.escalation-answered', data: { runId, escalationId: id, answer, ...(note ? { note: note.slice(0, 5_000) } : {}), by, at: now } }];
  if (answer === 'stop') events.push({ type: 'run.failed', data: { runId, reason: `Stopped by ${by}: ${e.subject}`.slice(0, 5_000), at: now } });
  const up = NEXT_LEVEL[e.to];
  if (answer === 'escalate' && up) {
    const details = [e.details, note ? `${by}: ${note}` : ''].filter(Boolean).join('\n\n');
    events.push(escalate(state, { base: `${id.replace(/-to-(robbo|operator)$/, '')}-to-${up}`, from: by, to: up, subject: e.subject, details, ...(e.about ? { about: e.about } : {}) }, now));
  }
  return events;
}

function fixTask(state: RunState, round: number, index: number, failure: QaFailure): AddedTask {
  const origin = failure.taskKey ? state.tasks[failure.taskKey] : undefined;
  const what = failure.details || failure.message || failure.test;
  return {
    key: `F${round}-${index + 1}`,
    subject: `Fix: ${what}`.slice(0, 200),
    description: `QA round ${round} (Verner) found a failure${failure.taskKey ? ` in ${failure.taskKey}` : ''}.\nTest: ${failure.test}\n${failure.message}\n${failure.details}`.trim(),
    pool: origin?.task.pool ?? 'backend',
    acceptanceCriteria: [`${failure.test} passes`],
    dependsOn: [],
    origin: 'qa-fix',
    ...(origin?.persona ? { author: origin.persona } : {}),
  };
}

function workshopEvents(started: Started, session: RunSessionState, o: SessionOutcome): RunEvent[] {
  const { runId } = started;
  const round = session.round ?? 1;
  if (o.output.kind === 'spec') {
    const events: RunEvent[] = [{ type: 'run.spec-drafted', data: { runId, spec: o.output.spec, at: o.now } }];
    return started.operator === 'auto' ? [...events, ...acceptSpecEvents(started, AUTO_OPERATOR, o.now)] : events;
  }
  if (o.output.kind !== 'questions') return [];
  const events: RunEvent[] = [{ type: 'run.questions-asked', data: { runId, round, questions: o.output.questions, at: o.now } }];
  if (started.operator === 'auto') events.push({ type: 'run.questions-answered', data: { runId, round, answer: AUTO_ANSWER, by: AUTO_OPERATOR, at: o.now } });
  return events;
}

function decomposeEvents(started: Started, session: RunSessionState, o: SessionOutcome): RunEvent[] {
  const { runId } = started;
  if (o.output.kind !== 'tasks') return [];
  const tasks = o.output.tasks;
  if (started.mode === 'v3') return [{ type: 'run.tasks-added', data: { runId, tasks: tasks.map((t) => ({ ...t, origin: 'plan' as const })), at: o.now } }];
  const proposed: RunEvent = { type: 'run.tasks-proposed', data: { runId, tasks, by: session.persona, ...(o.approvalId ? { approvalId: o.approvalId } : {}), at: o.now } };
  return started.operator === 'auto' ? [proposed, ...approveTasksEvents(started, tasks, AUTO_OPERATOR, false, o.now)] : [proposed];
}

function taskEvents(state: RunState, started: Started, session: RunSessionState, o: SessionOutcome): RunEvent[] {
  const key = session.taskKey!;
  const task = state.tasks[key];
  const status = o.output.kind === 'task' ? o.output.status : 'unknown';
  // "unknown": no usable reflection after a normal end; QA judges the work instead.
  const completed = !o.gaveBack && o.exitReason === 'completed' && (status === 'completed' || status === 'unknown');
  const handedOff = !o.gaveBack && o.exitReason === 'handoff';
  const summary = o.gaveBack ? `Gave the task back (release_task): ${o.gaveBack.reason}\n\n${o.summary}` : o.summary;
  const events: RunEvent[] = [
    {
      type: 'run.task-finished',
      data: {
        runId: started.runId,
        taskKey: key,
        ...(task ? { subject: task.task.subject } : {}),
        persona: session.persona,
        sessionId: session.sessionId,
        attempt: session.attempt,
        outcome: completed ? 'completed' : handedOff ? 'handed-off' : 'failed',
        summary: summary.slice(0, 10_000),
        files: o.files,
        at: o.now,
      },
    },
  ];
  // A handoff is the same attempt carried on by a fresh session of the same persona (seed 000 §6.3).
  if (!completed && !handedOff && session.attempt >= (task?.maxAttempts ?? started.limits.maxTaskAttempts)) {
    // Team → Gavin; in v1 the operator is the PM.
    const to: EscalationLevel = started.mode === 'v1' ? 'operator' : 'gavin';
    const subject = `${key} '${task?.task.subject ?? key}' failed ${session.attempt} time${session.attempt === 1 ? '' : 's'}`;
    events.push(escalate(state, { base: `${key}-attempts`, from: session.persona, to, subject, details: summary, about: key }, o.now));
  }
  return events;
}

function qaEvents(state: RunState, started: Started, session: RunSessionState, o: SessionOutcome): RunEvent[] {
  if (o.output.kind !== 'qa') return [];
  const { runId } = started;
  const round = session.round ?? state.qaRounds;
  const { passed, failures } = o.output;
  const events: RunEvent[] = [{ type: 'run.qa-reported', data: { runId, round, passed, failures, summary: o.summary.slice(0, 10_000), at: o.now } }];
  if (passed) return events;
  const about = qaMergeKey(round);
  if (round >= state.maxQaRounds) {
    const details = failures.map((f) => `${f.test}: ${f.message}`).join('\n');
    events.push(escalate(state, { base: about, from: session.persona, to: 'robbo', subject: `QA still failing after ${round} round${round === 1 ? '' : 's'}`, details, about }, o.now));
    return events;
  }
  const fixes = failures.filter((f) => f.decision === 'send-back');
  if (fixes.length) events.push({ type: 'run.tasks-added', data: { runId, tasks: fixes.map((f, i) => fixTask(state, round, i, f)), at: o.now } });
  let after = state;
  for (const f of failures.filter((x) => x.decision === 'escalate')) {
    // Verner → Robbo: is the spec wrong?
    const e = escalate(after, { base: `${about}-spec`, from: session.persona, to: 'robbo', subject: `Spec ambiguity: ${f.test}`, details: f.details || f.message, about }, o.now);
    after = { ...after, escalations: { ...after.escalations, [e.data.escalationId]: { ...e.data } } };
    events.push(e);
  }
  return events;
}

function escalationSessionEvents(state: RunState, session: RunSessionState, o: SessionOutcome): RunEvent[] {
  const id = session.escalationId!;
  if (!state.escalations[id] || state.escalations[id].answer) return [];
  if (o.output.kind === 'escalation') return answerEscalationEvents(state, id, o.output.decision, o.output.note, session.persona, o.now);
  // No usable decision: pass it up rather than guess.
  return answerEscalationEvents(state, id, 'escalate', 'No usable decision came out of the session', session.persona, o.now);
}

/** What a run session's end records: the session-ended event and its phase's result. */
export function outcomeEvents(state: RunState, session: RunSessionState, o: SessionOutcome): RunEvent[] {
  const started = state.started!;
  const ended: RunEvent = {
    type: 'run.session-ended',
    data: {
      runId: started.runId,
      sessionId: session.sessionId,
      exitReason: o.exitReason,
      summary: o.summary.slice(0, 20_000),
      ...(o.output.kind === 'invalid' ? { outputError: o.output.error.slice(0, 2_000) } : {}),
      at: o.now,
    },
  };
  // A finished run only notes the end, so the session's persona can go back to its pool.
  if (state.status !== 'active') return [ended];
  switch (session.purpose) {
    case 'workshop':
      return [ended, ...workshopEvents(started, session, o)];
    case 'decompose':
      return [ended, ...decomposeEvents(started, session, o)];
    case 'task':
      return [ended, ...taskEvents(state, started, session, o)];
    case 'qa':
      return [ended, ...qaEvents(state, started, session, o)];
    case 'review':
      return o.output.kind === 'review'
        ? [ended, { type: 'run.review-reported', data: { runId: started.runId, verdict: o.output.verdict, report: o.output.report, issues: o.output.issues, at: o.now } }]
        : [ended];
    case 'escalation':
      return [ended, ...escalationSessionEvents(state, session, o)];
  }
}
