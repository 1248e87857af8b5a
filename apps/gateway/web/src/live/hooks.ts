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
 * (debounced: a burst of events costs one reload), so a view follows the team live. The view
 * re-renders when its data changes, not on every event of the stream (a board of 1,000 cards would
 * be rendered again for each). A reload does not hide an earlier load still on its way: answers
 * are shown in the order the loads started; only a change of `deps` discards the older ones.
 */
export function useLive<T>(load: () => Promise<T>, prefixes: readonly string[], deps: readonly unknown[]): Resource<T> {
  const { stream } = useSession();
  const [resource, setResource] = useState<Resource<T>>({ status: 'loading' });
  const [trigger, setTrigger] = useState(0);
  const watched = useRef(prefixes);
  watched.current = prefixes;

  useEffect(() => {
    let handled = stream.version;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = stream.subscribe(() => {
      const count = stream.version - handled;
      if (count <= 0) return;
      handled = stream.version;
      if (pending) return;
      // More new events than the stream keeps: some went unseen, so reload.
      const fresh = stream.events.slice(0, count);
      if (count <= fresh.length && !fresh.some((e) => watched.current.some((p) => e.type.startsWith(p)))) return;
      pending = setTimeout(() => {
        pending = undefined;
        setTrigger((n) => n + 1);
      }, 120);
    });
    return () => {
      unsubscribe();
      clearTimeout(pending);
    };
  }, [stream]);

  const generation = useRef(0);
  const started = useRef(0);
  const shown = useRef(0);
  useEffect(
    () => () => {
      generation.current++;
    },
    deps,
  );

  useEffect(() => {
    const gen = generation.current;
    const seq = ++started.current;
    const show = (next: Resource<T>) => {
      if (gen !== generation.current || seq < shown.current) return;
      shown.current = seq;
      setResource(next);
    };
    load().then(
      (data) => show({ status: 'ready', data }),
      (error: unknown) => show({ status: 'error', message: error instanceof Error ? error.message : String(error), httpStatus: (error as { status?: number }).status }),
    );
  }, [...deps, trigger]);

  return resource;
}
