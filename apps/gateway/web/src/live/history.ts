import { useEffect, useState } from 'react';
import { EVENT_TYPES } from '../api/generated/event-types.gen';
import { useSession } from './hooks';
import type { StreamEvent, StreamPayload } from './event-stream';

export interface HistoryFilter {
  run?: string;
  team?: string;
  /** Comma list of event types (`category.*` wildcards). */
  types?: string;
  /** An ISO time, or `all`: where the replay starts. */
  since: string;
}

const MAX = 5_000;

/**
 * The events matching `filter` from `since` on, oldest first, and every later one as it comes: a
 * second, filtered connection to the stream (its replay is the history; the browser resumes it
 * with Last-Event-ID after a drop). Closed when the view goes away.
 */
export function useHistory(filter: HistoryFilter | undefined): StreamEvent[] {
  const { token } = useSession();
  const [events, setEvents] = useState<StreamEvent[]>([]);
  const key = filter ? JSON.stringify(filter) : '';
  useEffect(() => {
    setEvents([]);
    if (!filter) return;
    const seen = new Set<string>();
    let batch: StreamEvent[] = [];
    let flush: ReturnType<typeof setTimeout> | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let lastEventId: string | undefined;
    let source: EventSource;
    const onEvent = (message: MessageEvent<string>) => {
      if (message.lastEventId) lastEventId = message.lastEventId;
      if (!message.data) return;
      const event = JSON.parse(message.data) as StreamPayload;
      if (seen.has(event.eventId)) return;
      seen.add(event.eventId);
      batch.push({ ...event, cursor: message.lastEventId });
      // A replay arrives as a burst: one render per burst.
      flush ??= setTimeout(() => {
        flush = undefined;
        const added = batch;
        batch = [];
        setEvents((old) => [...old, ...added].slice(-MAX));
      }, 50);
    };
    const open = () => {
      const params = new URLSearchParams({ access_token: token });
      if (lastEventId) params.set('lastEventId', lastEventId);
      else params.set('since', filter.since);
      if (filter.run) params.set('run', filter.run);
      if (filter.team) params.set('team', filter.team);
      if (filter.types) params.set('types', filter.types);
      source = new EventSource(`/api/v1/stream?${params.toString()}`);
      for (const type of EVENT_TYPES) source.addEventListener(type, onEvent as EventListener);
      // The browser resumes a dropped stream by itself; a refused one (429 at the token's stream limit) it gives up: retried here.
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED) retry = setTimeout(open, 3_000);
      };
    };
    open();
    return () => {
      clearTimeout(flush);
      clearTimeout(retry);
      source.close();
    };
  }, [token, key]);
  return events;
}
