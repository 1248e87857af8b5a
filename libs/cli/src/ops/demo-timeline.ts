import type { StreamPayload } from './demo-stream';

/** One line of the demo's timeline: when, the group's state after it, who moved it and why. */
export interface TimelineEntry {
  at: string;
  type: string;
  state: string;
  by: string;
  why: string;
  simulated: boolean;
}

type Data = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const join = (...parts: string[]) => parts.filter(Boolean).join('; ');

/** What each transition adds to its reason. */
const details: Record<string, (d: Data) => string> = {
  'group.opened': (d) => join(`${str(d.type)}: ${str(d.title)}`, d.culprit ? `in ${str(d.culprit)}` : '', d.release ? `release ${str(d.release)}` : ''),
  'group.triaged': (d) =>
    join(
      `severity ${str(d.severity)}, ${str(d.domain)} → ${str(d.persona)}${d.autoFixable ? ', auto-fixable' : ', not auto-fixable'}${d.complex ? ', complex' : ''}`,
      str(d.hypothesis),
    ),
  'group.fix-proposed': (d) =>
    join(str(d.approach), d.approvalSkipped === 'trusted' ? 'no approval asked: trusted project, low severity' : d.approvalId ? `fix-approval ${str(d.approvalId)} waits in the approvals queue` : ''),
  'group.fix-started': (d) => join(`fix run ${str(d.runId)}`, d.team ? `team ${str(d.team)}` : ''),
  'group.fix-committed': (d) => join(`commit ${str(d.commit).slice(0, 12)}`, d.regressionTest ? `regression test ${str(d.regressionTest)}` : ''),
  'group.verified': (d) => (d.windowSeconds !== undefined ? `no event within ${str(d.windowSeconds)} s of the fix` : ''),
  'group.resolved': (d) => (d.fixRelease ? `fixed in ${str(d.fixRelease)}` : ''),
  'group.escalated': (d) => (d.level ? `to ${str(d.level)}` : ''),
  'group.regressed': (d) => join(`event ${str(d.eventId)}`, d.release ? `from release ${str(d.release)}` : ''),
  'group.spiked': (d) => `${str(d.count)} events in ${str(d.windowSeconds)} s, ${str(d.factor)}× its baseline`,
};

/** The timeline entry of a group event (undefined for any other event). */
export function timelineEntry(event: StreamPayload, currentState: string): TimelineEntry | undefined {
  if (!event.type.startsWith('group.')) return undefined;
  const d = event.data;
  const state = event.type === 'group.opened' ? 'NEW' : str(d.to) || currentState;
  const why = join(str(d.reason), details[event.type]?.(d) ?? '');
  return { at: str(d.at) || event.time, type: event.type, state, by: str(d.by) || (event.type === 'group.opened' ? 'ingest' : ''), why, simulated: d.simulated === true };
}

const clock = (iso: string) => {
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? '--:--:--' : t.toISOString().slice(11, 19);
};

export function formatEntry(e: TimelineEntry): string {
  return `${clock(e.at)}  ${e.state.padEnd(15)} ${e.by.padEnd(9)} ${e.simulated && !e.why.startsWith('[simulated]') ? '[simulated] ' : ''}${e.why}`;
}

/** A fix-run event worth a line under the group's, indented. */
const RUN_LINES = new Set(['run.started', 'run.session-started', 'run.task-finished', 'run.task-merged', 'run.regression-checked', 'run.qa-reported', 'run.review-reported', 'run.escalated', 'run.completed', 'run.failed']);

export function runLine(event: StreamPayload, simulated: boolean): string | undefined {
  if (!RUN_LINES.has(event.type)) return undefined;
  return `${clock(event.time)}  ${'  └'.padEnd(15)} ${'fix run'.padEnd(9)} ${simulated ? '[simulated] ' : ''}${event.summary}`;
}
