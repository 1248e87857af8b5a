import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The cursor is the sort key of the last item served, so a page boundary survives inserts before it. */
export const encodeCursor = (key: string) => Buffer.from(JSON.stringify({ k: key }), 'utf8').toString('base64url');

export function decodeCursor(cursor: string): string {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k?: unknown };
    if (typeof decoded?.k === 'string') return decoded.k;
  } catch {
    // falls through to the typed error
  }
  throw new HeadspaceError(ErrorCodes.gatewayCursorInvalid, 'cursor is not one this API issued', { field: 'cursor' });
}

/** A deterministic page of `items`: sorted by `key`, starting after the cursor's key. */
export function paginate<T>(items: readonly T[], key: (item: T) => string, limit: number, cursor?: string): Page<T> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const sorted = items
    .map((item) => ({ item, k: key(item) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .filter((entry) => after === undefined || entry.k > after);
  const page = sorted.slice(0, limit);
  const more = sorted.length > limit;
  return { items: page.map((e) => e.item), nextCursor: more ? encodeCursor(page[page.length - 1].k) : null };
}
