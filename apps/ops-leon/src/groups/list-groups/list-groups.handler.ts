import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { decodeGroupCursor, encodeGroupCursor, ErrorCodes, HeadspaceError, listGroups, type GroupSort } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { GroupRow } from '../group.entity';
import { groupSummary } from '../group-views';

/** The column each sort orders by (descending), then the group id to break ties. */
const SORT_KEY = { 'last-seen': 'lastSeen', 'first-seen': 'firstSeen', count: 'count' } as const satisfies Record<GroupSort, keyof GroupRow>;

const sortValue = (sort: GroupSort, row: GroupRow) => {
  const value = row[SORT_KEY[sort]];
  return value instanceof Date ? value.toISOString() : String(value);
};

/** `list-groups`: the groups read model filtered and sorted (descending), keyset-paged on (sort value, group id). */
@Controller()
export class ListGroupsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listGroups)
  async handle(@Payload() r: z.output<typeof listGroups.request>) {
    const key = SORT_KEY[r.sort];
    const after = r.cursor ? decodeGroupCursor(r.cursor) : null;
    if (after && after.sort !== r.sort) throw new HeadspaceError(ErrorCodes.validationFailed, `cursor: it pages the ${after.sort} sort, not ${r.sort}`, { field: 'cursor' });
    const bound = after ? (r.sort === 'count' ? after.value : new Date(after.value)) : undefined;
    const where = {
      ...(r.project ? (/^\d+$/.test(r.project) ? { projectId: r.project } : { project: r.project }) : {}),
      ...(r.state ? { state: r.state } : {}),
      ...(r.severity ? { severity: r.severity } : {}),
      ...(r.environment ? { environments: { $overlap: [r.environment] } } : {}),
      ...(r.release ? { releases: { $overlap: [r.release] } } : {}),
      ...(after ? { $or: [{ [key]: { $lt: bound } }, { [key]: bound, groupId: { $lt: after.groupId } }] } : {}),
    };
    const rows = await this.reads.rows(GroupRow, where as never, { orderBy: [{ [key]: 'desc' }, { groupId: 'desc' }] as never, limit: r.limit + 1 });
    const page = rows.slice(0, r.limit);
    const last = page[page.length - 1];
    return { items: page.map(groupSummary), nextCursor: rows.length > r.limit ? encodeGroupCursor(r.sort, sortValue(r.sort, last), last.groupId) : null };
  }
}
