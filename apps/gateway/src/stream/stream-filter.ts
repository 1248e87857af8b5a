import { parseOrThrow } from '@headspace/contracts';
import { z } from 'zod';
import type { StreamEvent } from './stream-event';

const token = z.string().trim().min(1).max(200);
const typePattern = /^(?:[a-z][a-z0-9-]*\.(?:[a-z][a-z0-9-]*|\*)|\*)$/;

/** Query string of `GET /api/v1/stream`. `access_token` belongs to the auth guard and is ignored here. */
const teamList = z
  .string()
  .max(2_000)
  .transform((v) => v.split(',').map((t) => t.trim()).filter(Boolean))
  .pipe(z.array(z.string().max(200)).min(1).max(100));

/** `headspace` (default): `{eventId, type, summary, data…}` frames; `cloudevents`: each frame's data is the CloudEvent. */
export const streamFormats = ['headspace', 'cloudevents'] as const;
export type StreamFormat = (typeof streamFormats)[number];

export const streamQuerySchema = z.object({
  /** One team, or a comma list of teams. */
  team: teamList.optional(),
  run: token.optional(),
  persona: token.optional(),
  /** Comma list of event types; `category.*` matches a whole category. */
  types: z
    .string()
    .max(2_000)
    .transform((v) => v.split(',').map((t) => t.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(typePattern, 'must be event types such as task.claimed or task.*, separated by commas')).min(1).max(100))
    .optional(),
  /** Where a connection without Last-Event-ID starts: `new` (default), `all`, or an ISO-8601 time. */
  since: z.union([z.enum(['new', 'all']), z.iso.datetime({ offset: true })]).default('new'),
  format: z.enum(streamFormats).default('headspace'),
  access_token: z.string().optional(),
});

export type StreamQuery = z.output<typeof streamQuery>;
const streamQuery = streamQuerySchema;

export function parseStreamQuery(query: unknown): StreamQuery {
  return parseOrThrow(streamQuery, query ?? {}, 'query string');
}

export interface EventFilter {
  matches(event: StreamEvent): boolean;
}

export function eventFilter(query: Pick<StreamQuery, 'team' | 'run' | 'persona' | 'types'>): EventFilter {
  const exact = new Set<string>();
  const categories = new Set<string>();
  let anyType = !query.types || query.types.length === 0;
  for (const t of query.types ?? []) {
    if (t === '*') anyType = true;
    else if (t.endsWith('.*')) categories.add(t.slice(0, -2));
    else exact.add(t);
  }
  const persona = query.persona?.toLowerCase();
  const teams = query.team ? new Set(query.team) : undefined;
  return {
    matches(event) {
      if (teams !== undefined && (event.team === undefined || !teams.has(event.team))) return false;
      if (query.run !== undefined && event.runId !== query.run) return false;
      if (persona !== undefined && !event.actors.includes(persona)) return false;
      if (anyType || exact.has(event.type)) return true;
      const dot = event.type.indexOf('.');
      return dot > 0 && categories.has(event.type.slice(0, dot));
    },
  };
}
