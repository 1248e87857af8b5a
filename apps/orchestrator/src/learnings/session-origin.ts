import { askStreamId, loopStreamId, type EventData, type LearningSource, type sessionStarted } from '@headspace/contracts';
import type { EventStore } from '@headspace/event-store';

type Started = Pick<EventData<typeof sessionStarted>, 'runId' | 'sessionId'>;

export interface SessionOrigin {
  source: LearningSource;
  /** The workspace the ask or loop works on: the learning's project; none for run sessions (their learnings apply team-wide). */
  project?: string;
}

/**
 * Where a session comes from, read from the streams (never a read model): an ask's (`ask-<runId>`),
 * a loop's (`loop-<runId>`, with the iteration that started this session), a run's, or none.
 */
export async function sessionOrigin(store: EventStore, started: Started): Promise<SessionOrigin> {
  const base = { sessionId: started.sessionId };
  if (!started.runId) return { source: { kind: 'session', ...base } };
  const id = started.runId;
  const [ask] = await store.readStream(askStreamId(id));
  if (ask?.type === 'ask.started') return { source: { kind: 'ask', id, ...base }, project: (ask.data as { workspace: string }).workspace };
  const loop = await store.readStream(loopStreamId(id));
  if (loop[0]?.type === 'loop.started') {
    const iteration = loop.find((e) => e.type === 'loop.iteration-started' && (e.data as { sessionId: string }).sessionId === started.sessionId)?.data as { iteration: number } | undefined;
    return { source: { kind: 'loop', id, ...base, ...(iteration ? { iteration: iteration.iteration } : {}) }, project: (loop[0].data as { workspace: string }).workspace };
  }
  return { source: { kind: 'run', id, ...base } };
}
