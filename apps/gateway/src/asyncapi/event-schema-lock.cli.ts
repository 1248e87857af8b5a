import { LOCK_PATH, readLock, updatedLock, writeLock } from './event-schema-lock';
import { publishedEvents } from './published-events';

/**
 * `npm run contracts:lock [-- --accept-change <type>.v<n> …]`: records the schema hash of every new
 * event version. It refuses to rewrite a locked version unless named: a changed schema needs a new
 * schemaVersion, not a new hash.
 */
const args = process.argv.slice(2);
const accepted = args.flatMap((a, i) => (args[i - 1] === '--accept-change' ? [a] : []));
const current = readLock();
const { lock, refused } = updatedLock(publishedEvents, current, accepted);
if (refused.length > 0) {
  console.error(`Schema changed without a new schemaVersion: ${refused.join(', ')}. Bump schemaVersion in its defineEvent, or pass --accept-change <type>.v<n> for a compatible change.`);
  process.exit(1);
}
writeLock(lock);
console.log(`${LOCK_PATH}: ${Object.keys(lock).length} event versions (${Object.keys(lock).length - Object.keys(current).length} new)`);
