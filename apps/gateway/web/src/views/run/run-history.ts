import type { StreamEvent } from '../../live/event-stream';

type Data = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

export interface ToolCall {
  toolUseId: string;
  tool: string;
  isError: boolean;
  content: string;
  filesModified: string[];
}

export interface Turn {
  turn: number;
  model: string;
  stopReason: string;
  text: string;
  outputTokens: number;
  tools: ToolCall[];
}

/** How the session's model and effort were chosen (the governor's routing, a pin, or the fallback). */
export interface SessionRouting {
  model: string;
  effort: string;
  how: 'routed' | 'pinned by the operator' | 'pinned by its agent' | 'default (the governor did not answer)';
  reasons: string[];
}

export interface SessionHistory {
  sessionId: string;
  persona: string;
  purpose: string;
  taskKey?: string;
  routing?: SessionRouting;
  traceId?: string;
  turns: Turn[];
  ended?: { exitReason: string; summary: string };
}

export interface RunHistory {
  traceId?: string;
  timeline: StreamEvent[];
  sessions: SessionHistory[];
  merges: Array<{ taskKey: string; subject?: string; commit?: string; files: string[]; time: string }>;
  qa: Array<{ round: number; passed: boolean; summary: string; failures: Array<{ test: string; message: string; decision: string }> }>;
  reviews: Array<{ verdict: string; report: string; issues: string[] }>;
}

const textOf = (content: unknown): string =>
  (Array.isArray(content) ? (content as Data[]) : [])
    .filter((b) => b.type === 'text')
    .map((b) => str(b.text) ?? '')
    .join('\n')
    .trim();

function routingOf(value: unknown): SessionRouting | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const r = value as Data;
  const model = str(r.model);
  if (!model) return undefined;
  const how: SessionRouting['how'] =
    r.fallback === true ? 'default (the governor did not answer)' : r.pinnedBy === 'operator' ? 'pinned by the operator' : r.pinnedBy === 'agent' ? 'pinned by its agent' : 'routed';
  return { model, effort: str(r.effort) ?? 'standard', how, reasons: Array.isArray(r.reasons) ? r.reasons.filter((x): x is string => typeof x === 'string') : [] };
}

/** Folds a run's replayed and live events (oldest first) into what the run view shows. */
export function foldRunHistory(events: readonly StreamEvent[]): RunHistory {
  const out: RunHistory = { timeline: [], sessions: [], merges: [], qa: [], reviews: [] };
  const sessions = new Map<string, SessionHistory>();
  const session = (id: string): SessionHistory => {
    let s = sessions.get(id);
    if (!s) {
      s = { sessionId: id, persona: '?', purpose: 'session', turns: [] };
      sessions.set(id, s);
      out.sessions.push(s);
    }
    return s;
  };
  const turn = (s: SessionHistory, n: number): Turn => {
    let t = s.turns.find((x) => x.turn === n);
    if (!t) {
      t = { turn: n, model: '', stopReason: '', text: '', outputTokens: 0, tools: [] };
      s.turns.push(t);
      s.turns.sort((a, b) => a.turn - b.turn);
    }
    return t;
  };
  for (const e of events) {
    const d = e.data;
    if (e.type.startsWith('run.')) out.timeline.push(e);
    switch (e.type) {
      case 'run.started':
        out.traceId ??= e.traceId;
        break;
      case 'run.session-started': {
        const s = session(String(d.sessionId));
        const routing = routingOf(d.routing);
        Object.assign(s, { persona: String(d.persona), purpose: String(d.purpose), ...(str(d.taskKey) ? { taskKey: str(d.taskKey) } : {}), ...(routing ? { routing } : {}) });
        break;
      }
      case 'session.started':
        session(String(d.sessionId)).traceId = e.traceId;
        break;
      case 'session.model-called': {
        const t = turn(session(String(d.sessionId)), num(d.turn));
        Object.assign(t, { model: String(d.model), stopReason: String(d.stopReason), text: textOf(d.content), outputTokens: num((d.usage as Data | undefined)?.outputTokens) });
        break;
      }
      case 'session.tool-called':
        turn(session(String(d.sessionId)), num(d.turn)).tools.push({
          toolUseId: String(d.toolUseId),
          tool: String(d.tool),
          isError: d.isError === true,
          content: String(d.content ?? ''),
          filesModified: Array.isArray(d.filesModified) ? (d.filesModified as string[]) : [],
        });
        break;
      case 'session.ended':
        session(String(d.sessionId)).ended = { exitReason: String(d.exitReason), summary: String(d.summary ?? '') };
        break;
      case 'run.task-merged':
        out.merges.push({ taskKey: String(d.taskKey), subject: str(d.subject), commit: str(d.commit), files: Array.isArray(d.files) ? (d.files as string[]) : [], time: e.time });
        break;
      case 'run.qa-reported':
        out.qa.push({ round: num(d.round), passed: d.passed === true, summary: String(d.summary ?? ''), failures: Array.isArray(d.failures) ? (d.failures as ToolFailure[]) : [] });
        break;
      case 'run.review-reported':
        out.reviews.push({ verdict: String(d.verdict), report: String(d.report ?? ''), issues: Array.isArray(d.issues) ? (d.issues as string[]) : [] });
        break;
    }
  }
  return out;
}

type ToolFailure = { test: string; message: string; decision: string };
