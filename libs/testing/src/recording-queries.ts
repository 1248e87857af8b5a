import type { PoolClient } from 'pg';

/** One query as a client sent it: a named statement's name, and its text. */
export interface SentQuery {
  name?: string;
  text: string;
}

/**
 * `target` (a pg Pool, or a client it hands out) recording every query sent through it into
 * `sent`, for specs that assert what reaches the database: which statements, in how many round trips.
 */
export function recordingQueries<T extends object>(target: T, sent: SentQuery[]): T {
  const record = (config: unknown) =>
    sent.push(typeof config === 'string' ? { text: config } : { name: (config as SentQuery).name, text: String((config as SentQuery).text) });
  return new Proxy(target, {
    get(object, key, receiver) {
      const value = Reflect.get(object, key, receiver) as unknown;
      if (key === 'query') return (config: unknown, ...rest: unknown[]) => (record(config), (value as (...args: unknown[]) => unknown).call(object, config, ...rest));
      if (key === 'connect') return async () => recordingQueries(await (value as () => Promise<PoolClient>).call(object), sent);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
