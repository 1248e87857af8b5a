import { createContext, useContext, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { Role } from '../api/client';
import type { EventStream, StreamEvent } from './event-stream';

export interface Session {
  token: string;
  role: Role;
  team: string | undefined;
  stream: EventStream;
  /** The gateway's trace URL with `{traceId}` in it (HS_TRACE_URL_TEMPLATE); null: no trace links. */
  traceUrlTemplate: string | null;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Re-renders on every stream change (state or event). */
export function useStream(): { state: EventStream['state']; events: StreamEvent[]; version: number } {
  const { stream } = useSession();
  const version = useSyncExternalStore(
    (l) => stream.subscribe(l),
    () => `${stream.state}:${stream.version}`,
  );
  void version;
  return { state: stream.state, events: stream.events, version: stream.version };
}

export type Resource<T> = { status: 'loading' } | { status: 'error'; message: string; httpStatus?: number } | { status: 'ready'; data: T };

/**
 * Loads `load()` and reloads it when an event whose type starts with one of `prefixes` arrives
 * (debounced: a burst of events costs one reload), so a view follows the team live.
 */
export function useLive<T>(load: () => Promise<T>, prefixes: readonly string[], deps: readonly unknown[]): Resource<T> {
  const { events, version } = useStream();
  const [resource, setResource] = useState<Resource<T>>({ status: 'loading' });
  const [trigger, setTrigger] = useState(0);
  const handled = useRef(version);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    const fresh = events.slice(0, Math.max(0, version - handled.current));
    handled.current = version;
    if (pending.current || !fresh.some((e) => prefixes.some((p) => e.type.startsWith(p)))) return;
    pending.current = setTimeout(() => {
      pending.current = undefined;
      setTrigger((n) => n + 1);
    }, 120);
  }, [version, events, prefixes]);

  useEffect(() => {
    let cancelled = false;
    load().then(
      (data) => !cancelled && setResource({ status: 'ready', data }),
      (error: unknown) =>
        !cancelled &&
        setResource({ status: 'error', message: error instanceof Error ? error.message : String(error), httpStatus: (error as { status?: number }).status }),
    );
    return () => {
      cancelled = true;
    };
  }, [...deps, trigger]);

  return resource;
}
