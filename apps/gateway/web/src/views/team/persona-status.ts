import type { StreamEvent } from '../../live/event-stream';

export type StatusKey = 'idle' | 'working' | 'waiting' | 'paused';

export interface PersonaActivity {
  /** The persona's open session: what it works on and its latest turn. */
  session?: { sessionId: string; what: string; turn: number };
  /** The governor paused the persona's session at its budget (and nothing resumed it since). */
  pausedByBudget: boolean;
}

/**
 * Each persona's live activity from the team's session events (oldest first): the open session,
 * its turn, and whether the cost governor paused it.
 */
export function activityByPersona(events: readonly StreamEvent[]): Map<string, PersonaActivity> {
  const personaOf = new Map<string, string>();
  const out = new Map<string, PersonaActivity>();
  const of = (persona: string) => {
    let a = out.get(persona);
    if (!a) out.set(persona, (a = { pausedByBudget: false }));
    return a;
  };
  for (const e of events) {
    const d = e.data;
    const sessionId = typeof d.sessionId === 'string' ? d.sessionId : undefined;
    if (!sessionId) continue;
    if (e.type === 'session.started') {
      const persona = String(d.persona).toLowerCase();
      personaOf.set(sessionId, persona);
      const what = typeof d.taskId === 'string' ? `task ${d.taskId}` : typeof d.situation === 'string' ? d.situation : String(d.kind ?? 'a session');
      Object.assign(of(persona), { session: { sessionId, what, turn: 0 }, pausedByBudget: false });
      continue;
    }
    const persona = personaOf.get(sessionId);
    if (!persona) continue;
    const a = of(persona);
    if (a.session?.sessionId !== sessionId) continue;
    if (e.type === 'session.model-called' && typeof d.turn === 'number') a.session.turn = Math.max(a.session.turn, d.turn);
    if (e.type === 'session.budget-decided') a.pausedByBudget = d.decision === 'paused';
    if (e.type === 'session.ended') out.set(persona, { pausedByBudget: false });
  }
  return out;
}

export function statusText(key: StatusKey, doing: string): string {
  switch (key) {
    case 'working':
      return doing ? `working on ${doing}` : 'working';
    case 'waiting':
      return 'waiting for approval';
    case 'paused':
      return 'paused by budget';
    default:
      return 'idle';
  }
}
