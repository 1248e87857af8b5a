import { renderHandoffMarkdown } from '@headspace/agent-runtime';
import { sessionStreamId, type EventData, type sessionEnded, type sessionHandedOff, type sessionModelCalled, type sessionReflected, type sessionToolCalled } from '@headspace/contracts';
import type { EventStore, RecordedEvent } from '@headspace/event-store';

export interface RecordedSessionOutcome {
  exitReason: string;
  summary: string;
  filesModified: string[];
  reflection?: Record<string, unknown>;
  /** The tasks the agent gave back with release_task and did not claim again, with the reason it gave. */
  gaveBack: GivenBack[];
}

/** What a session's own stream says: whether it was started at all, and its outcome once it has ended. */
export async function readSessionOutcome(store: EventStore, sessionId: string): Promise<{ started: boolean; outcome?: RecordedSessionOutcome }> {
  const events = await store.readStream(sessionStreamId(sessionId));
  const ended = events.find((e) => e.type === 'session.ended')?.data as EventData<typeof sessionEnded> | undefined;
  if (!ended) return { started: events.length > 0 };
  const reflected = events.find((e) => e.type === 'session.reflected')?.data as EventData<typeof sessionReflected> | undefined;
  const reflection = reflected && !reflected.malformed ? reflected.reflection : undefined;
  // A session that handed off passes its handoff artefact on as its summary: the next session of the persona starts from it.
  const handedOff = events.find((e) => e.type === 'session.handed-off')?.data as EventData<typeof sessionHandedOff> | undefined;
  const summary = ended.exitReason === 'handoff' && handedOff ? renderHandoff(handedOff.handoff) ?? ended.summary : ended.summary;
  return {
    started: true,
    outcome: { exitReason: ended.exitReason, summary, filesModified: ended.filesModified, ...(reflection ? { reflection } : {}), gaveBack: givenBack(events) },
  };
}

export interface GivenBack {
  taskId: string;
  reason: string;
}

/**
 * The tasks whose last successful claim_task or release_task call in the session was the release. A
 * tool's result is the task's view (with its id); the reason is in the model's tool_use input.
 */
export function givenBack(events: RecordedEvent[]): GivenBack[] {
  const reasons = new Map<string, string>();
  const last = new Map<string, { tool: string; reason: string }>();
  for (const event of events) {
    if (event.type === 'session.model-called') {
      for (const block of (event.data as EventData<typeof sessionModelCalled>).content as Array<{ type: string; id?: string; name?: string; input?: { reason?: unknown } }>) {
        if (block.type === 'tool_use' && block.name === 'release_task' && block.id && typeof block.input?.reason === 'string') reasons.set(block.id, block.input.reason);
      }
      continue;
    }
    if (event.type !== 'session.tool-called') continue;
    const call = event.data as EventData<typeof sessionToolCalled>;
    if (call.isError || (call.tool !== 'release_task' && call.tool !== 'claim_task')) continue;
    const taskId = taskIdOf(call.content);
    if (taskId) last.set(taskId, { tool: call.tool, reason: reasons.get(call.toolUseId) ?? 'no reason recorded' });
  }
  return [...last].filter(([, call]) => call.tool === 'release_task').map(([taskId, { reason }]) => ({ taskId, reason }));
}

function taskIdOf(content: string): string | undefined {
  try {
    const view = JSON.parse(content) as { id?: unknown };
    return typeof view.id === 'string' ? view.id : undefined;
  } catch {
    return undefined;
  }
}

function renderHandoff(artefact: Record<string, unknown>): string | undefined {
  try {
    return renderHandoffMarkdown(artefact as unknown as Parameters<typeof renderHandoffMarkdown>[0]).slice(0, 10_000);
  } catch {
    return undefined;
  }
}
