import { Client, type ClientConfig } from 'pg';

type Callback = (error: Error | null, result: unknown) => void;

/**
 * The pg Client every Headspace pool hands out (Pool option `Client`). A promise-form query on a
 * checked-out client (`await client.query(config)`: every query inside a transaction) runs here
 * through pg's callback form, which gives the query its callback when the query is built.
 *
 * Why: pg's own promise form builds the query and only then assigns its callback. On Node 24 the
 * rows of such queries survive young-generation collections, so a long replay promotes its batches
 * to the old generation and runs full collections (figures: bench/README.md). Pool#query already
 * takes the callback form, and
 * callback queries (an argument or a config's `callback`) and stream queries (Submittable) pass
 * through untouched.
 *
 * It also always listens for its own `error` event. pg emits one when the connection dies (a
 * PostgreSQL restart: `read ECONNRESET`, `Connection terminated unexpectedly`, 57P01), and the pool
 * listens only while a client is idle: on a checked-out client between two queries of a transaction
 * nobody would, and Node would turn the event into an uncaught exception that ends the process. The
 * error is not lost: the running query rejects with it, the next one with "not queryable", and the
 * pool discards the client on release.
 */
export class PgClient extends Client {
  /** The error that broke this client's connection, if one did. */
  connectionError?: Error;

  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', (error: Error) => (this.connectionError ??= error));
  }

  // `never` is assignable to each of pg's overloads, so callers keep Client's own typings.
  override query(...args: unknown[]): never {
    const [config, values, callback] = args;
    const own = config as { submit?: unknown; callback?: unknown } | null;
    if (typeof values === 'function' || typeof callback === 'function' || typeof own?.submit === 'function' || typeof own?.callback === 'function') {
      return (super.query as (...a: unknown[]) => never)(...args);
    }
    const query = super.query as (config: unknown, values: unknown, callback: Callback) => void;
    return new Promise((resolve, reject) => {
      query.call(this, config, values, (error, result) => (error ? reject(error) : resolve(result)));
    }).catch((error: Error) => {
      // As pg does: the stack then leads back to the caller, not to the socket read.
      Error.captureStackTrace(error);
      throw error;
    }) as never;
  }
}
