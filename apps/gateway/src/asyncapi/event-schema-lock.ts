import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventDefinition } from '@headspace/contracts';
import { messageKey } from './asyncapi-document';
import { toJsonSchema } from './envelope-schemas';

export const LOCK_PATH = join(__dirname, '../../../../libs/contracts/src/event-schemas.lock.json');
export const LOCK_COMMAND = 'npm run contracts:lock';

/** `<type>.v<n>` → sha256 of its JSON schema; versions once published stay in the file. */
export type SchemaLock = Record<string, string>;

const WORDS = new Set(['description', 'title', 'examples']);
const MAPS = new Set(['properties', 'patternProperties', '$defs']);

/** Keys sorted; prose (description, title, examples) left out: rewording a schema is not a new version. */
function canonical(node: unknown, isMap = false): unknown {
  if (Array.isArray(node)) return node.map((n) => canonical(n));
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node)
    .filter(([k]) => isMap || !WORDS.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => [k, canonical(v, !isMap && MAPS.has(k))]);
  return Object.fromEntries(entries);
}

export const schemaHash = (e: EventDefinition) => createHash('sha256').update(JSON.stringify(canonical(toJsonSchema(e.schema)))).digest('hex');

export const readLock = (path = LOCK_PATH): SchemaLock => JSON.parse(readFileSync(path, 'utf8')) as SchemaLock;

/** One line per event whose schema differs from its locked version or is not locked yet. */
export function lockViolations(events: readonly EventDefinition[], lock: SchemaLock): string[] {
  const problems: string[] = [];
  for (const e of events) {
    const key = messageKey(e);
    const locked = lock[key];
    if (locked === undefined) {
      problems.push(`${key} (${e.service}) is not in the schema lock: run \`${LOCK_COMMAND}\` and commit libs/contracts/src/event-schemas.lock.json`);
    } else if (locked !== schemaHash(e)) {
      problems.push(
        `${e.type} changed its schema without a new schemaVersion (still v${e.schemaVersion}): subscribers validate v${e.schemaVersion} against the published schema. ` +
          `Give its defineEvent schemaVersion: ${e.schemaVersion + 1} (and upcast old events), then run \`${LOCK_COMMAND}\`; ` +
          `if the change is deliberately compatible, \`${LOCK_COMMAND} -- --accept-change ${key}\``,
      );
    }
  }
  return problems;
}

/** Adds new versions; a changed hash of a locked version is replaced only when accepted by name. */
export function updatedLock(events: readonly EventDefinition[], lock: SchemaLock, accepted: readonly string[] = []): { lock: SchemaLock; refused: string[] } {
  const next: SchemaLock = { ...lock };
  const refused: string[] = [];
  for (const e of events) {
    const key = messageKey(e);
    const hash = schemaHash(e);
    if (next[key] !== undefined && next[key] !== hash && !accepted.includes(key)) refused.push(key);
    else next[key] = hash;
  }
  return { lock: Object.fromEntries(Object.entries(next).sort(([a], [b]) => a.localeCompare(b))), refused };
}

export const writeLock = (lock: SchemaLock, path = LOCK_PATH) => writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
