import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, paginate } from './pagination';

const items = ['d', 'a', 'c', 'b', 'e'].map((id) => ({ id }));
const key = (i: { id: string }) => i.id;

describe('cursor pagination', () => {
  it('walks every item once, in key order, whatever the source order', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = paginate(items, key, 2, cursor);
      seen.push(...page.items.map(key));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('the last page has no next cursor, and an exact fit does not promise a further page', () => {
    expect(paginate(items, key, 5).nextCursor).toBeNull();
    expect(paginate(items, key, 4).nextCursor).toEqual(expect.any(String));
  });

  it('a page boundary survives an item inserted before it', () => {
    const first = paginate(items, key, 2);
    const grown = [...items, { id: 'aa' }];
    expect(paginate(grown, key, 10, first.nextCursor ?? undefined).items.map(key)).toEqual(['c', 'd', 'e']);
  });

  it('round-trips keys and refuses cursors it did not issue with GATEWAY.CURSOR_INVALID', () => {
    expect(decodeCursor(encodeCursor('2026-01-01|t1'))).toBe('2026-01-01|t1');
    for (const bad of ['%%%', 'bm90LWpzb24', Buffer.from('{"k":1}').toString('base64url')]) {
      expect(() => decodeCursor(bad)).toThrow(expect.objectContaining({ code: 'GATEWAY.CURSOR_INVALID', field: 'cursor' }));
    }
  });
});
