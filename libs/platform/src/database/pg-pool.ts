import { PgClient } from '@headspace/event-store';
import { Pool, types, type CustomTypesConfig } from 'pg';

const INT8 = 20;
const INT8_ARRAY = 1016;
const NUMERIC = 1700;
const XID8 = 5069;
const XID8_ARRAY = 271;

type Parser = (value: string) => unknown;
// pg's typings only accept built-in OIDs; the runtime looks up any number.
const builtinParser = types.getTypeParser as (oid: number, format?: 'text' | 'binary') => Parser;
const identity: Parser = (value) => value;
const overrides = new Map<number, Parser>([
  [INT8, identity],
  [NUMERIC, identity],
  [XID8, identity],
  [INT8_ARRAY, builtinParser(INT8_ARRAY, 'text')],
  [XID8_ARRAY, builtinParser(INT8_ARRAY, 'text')],
]);

/**
 * Positions, versions and xid8 values exceed 2^53: they stay strings, never Number, whatever
 * another module may register globally on pg.types.
 */
export const headspacePgTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (format ?? 'text') === 'text' && overrides.has(oid)
      ? overrides.get(oid)
      : builtinParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

export interface PgPoolOptions {
  connectionString: string;
  applicationName: string;
  max?: number;
  idleInTransactionTimeoutMs?: number;
  onError?: (error: Error) => void;
}

export function createPgPool(options: PgPoolOptions): Pool {
  const pool = new Pool({
    connectionString: options.connectionString,
    application_name: options.applicationName,
    max: options.max ?? 10,
    // A stuck transaction would hold back the xid8 read fence for every processor.
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 30_000,
    connectionTimeoutMillis: 10_000,
    types: headspacePgTypes,
    Client: PgClient,
  });
  // An idle client losing its connection emits here; unhandled, it would crash the process.
  pool.on('error', (error) => options.onError?.(error));
  return pool;
}
