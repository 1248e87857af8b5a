/**
 * One event as the hub sees it: decoded once from its JetStream message, then offered to every
 * client (filters and scope read these fields; `frame` is the shared part of the SSE message).
 */
export interface StreamEvent {
  /** Cursor key of the JetStream stream it came from. */
  streamKey: string;
  seq: number;
  eventId: string;
  type: string;
  /** The team the event belongs to, when it belongs to one. */
  team?: string;
  runId?: string;
  /** Lower-cased names of the personas/members the event is about (owner, sender, recipient…). */
  actors: readonly string[];
  /** `event: <type>\ndata: <json>\n\n`: everything of the SSE message but the per-client `id:`. */
  frame: string;
  /** `data: <CloudEvent json>\n\n` (`format=cloudevents`), built on first use and then shared. */
  cloudFrame(): string;
}

/** The JSON of an SSE message's `data:` line: the contract the OpenAPI document publishes. */
export type { StreamEventPayload } from '@headspace/contracts';

type Data = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The team of an event: `data.team` when the payload names it, else read from the stream id of the
 * team-manager's stream categories (`team-<t>`, `task-<t>.<id>`, `inbox-<t>/<m>`, …).
 */
export function teamOf(type: string, streamId: string, data: Data): string | undefined {
  const named = str(data.team) ?? str(data.teamName);
  if (named) return named;
  if (type === 'team.created' && str(data.name)) return data.name as string;
  const match = /^(team|tasklist|mailbox|manifest)-(.+)$/.exec(streamId) ?? /^(task|inbox|filelock)-([a-z0-9][a-z0-9-]{0,63})[./:]/.exec(streamId);
  return match ? match[2] : undefined;
}

const ACTOR_FIELDS = ['owner', 'from', 'recipient', 'to', 'requester', 'holder', 'member', 'memberId', 'name', 'personaId', 'persona', 'decidedBy', 'requestedBy', 'agentId'];

/** Persona / member names an event concerns, for the `persona` filter. */
export function actorsOf(type: string, data: Data): string[] {
  const out = new Set<string>();
  for (const field of ACTOR_FIELDS) {
    if (field === 'name' && !type.startsWith('teammate.')) continue;
    const value = data[field];
    if (typeof value === 'string' && value !== '') out.add(value.toLowerCase());
    else if (field === 'persona' && value && typeof value === 'object' && str((value as Data).personaId)) {
      out.add(((value as Data).personaId as string).toLowerCase());
    }
  }
  return [...out];
}

/** The trace id of a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`). */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const match = traceparent ? /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent.trim()) : null;
  return match ? match[1] : undefined;
}
