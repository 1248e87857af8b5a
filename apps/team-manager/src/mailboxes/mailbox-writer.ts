import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, inboxStreamId, mailboxStreamId, teamStreamId } from '@headspace/contracts';
import { deterministicEventId, EventStore, foldEvents, quoteIdent, type Elsewhere, type LoadedStream, type Queryable, type RecordedEvent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { InboxEvent } from './inbox.decider';
import { mailboxDecider, type MailboxEvent, type MailboxState } from './mailbox.decider';

/** Where a mailbox decision's copies go: each delivered message to its recipient's inbox, in any order with other senders. */
export const inboxOf =
  (team: string) =>
  (event: MailboxEvent): Elsewhere | undefined =>
    event.type === 'mailbox.message-delivered' ? { streamId: inboxStreamId(team, event.data.recipient), expected: 'any' } : undefined;

export type VersionedInboxEvent = InboxEvent & { version: bigint };
export interface InboxSince {
  from: bigint;
  events: VersionedInboxEvent[];
  /** The inbox stream's version as read. */
  version: bigint;
}

/** What the mailbox's commands read besides their stream: the team's shutdown facts, earlier deliveries of a command, an inbox since its read marker. */
@Injectable()
export class MailboxWriter {
  private readonly q: string;

  constructor(
    readonly store: EventStore,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  /** The registry state and version, with the team's shutdown facts (see `withTeamFacts`). */
  async registry(team: string): Promise<{ state: MailboxState; version: bigint }> {
    const history = await this.store.readStream(mailboxStreamId(team));
    const state = await this.withTeamFacts(team)({ state: foldEvents(mailboxDecider, history as Array<RecordedEvent & MailboxEvent>), history });
    return { state, version: history.length ? history[history.length - 1].streamVersion : 0n };
  }

  /**
   * The `before` hook of registry commands: the team's shutdown facts read from the team stream itself
   * (read-your-writes: an idle notification right after the shutdown was accepted must know of it);
   * MAILBOX.UNKNOWN_TEAM when neither the registry nor the team exists.
   */
  withTeamFacts(team: string) {
    return async ({ state, history, client }: LoadedStream<MailboxState>): Promise<MailboxState> => {
      const facts = await this.teamShutdownFacts(team, client ?? this.pool);
      if (history.length === 0 && !facts.exists) {
        throw new HeadspaceError(ErrorCodes.mailboxUnknownTeam, `Team "${team}" does not exist`, { field: 'team' });
      }
      return { ...state, teamShutdown: { underway: facts.underway, requestIds: facts.requestIds } };
    };
  }

  /** One indexed statement on the team stream: does it exist, is a shutdown under way or done, which request ids were its. */
  private async teamShutdownFacts(team: string, db: Queryable): Promise<{ exists: boolean; underway: boolean; requestIds: ReadonlySet<string> }> {
    const { rows } = await db.query<{ exists: boolean; last: string | null; request_ids: string[] }>({
      name: `hs-team-shutdown-facts-${this.q}`,
      text: `SELECT EXISTS (SELECT 1 FROM ${this.q}.streams WHERE stream_id = $1) AS exists,
                    (SELECT type FROM ${this.q}.events WHERE stream_id = $1 AND type = ANY ($2::text[]) ORDER BY stream_version DESC LIMIT 1) AS last,
                    ARRAY(SELECT r ->> 'requestId' FROM ${this.q}.events e, jsonb_array_elements(e.data -> 'requests') r
                           WHERE e.stream_id = $1 AND e.type = 'team.shutdown-requested') AS request_ids`,
      values: [teamStreamId(team), ['team.shutdown-requested', 'team.shutdown-aborted', 'team.shutdown-completed']],
    });
    const { exists, last, request_ids } = rows[0];
    return { exists, underway: last === 'team.shutdown-requested' || last === 'team.shutdown-completed', requestIds: new Set(request_ids) };
  }

  /**
   * Events this command already recorded in any of the given streams (a retried send): their ids are
   * derived from the command id and the stream, so one indexed lookup finds them whichever inboxes
   * they went to.
   */
  async priorEvents(commandId: string, streams: string[]): Promise<Array<{ streamId: string; type: string; data: unknown }>> {
    const ids = streams.flatMap((stream) => [0, 1].map((index) => deterministicEventId(commandId, stream, index)));
    const { rows } = await this.pool.query<{ stream_id: string; type: string; data: unknown }>(
      `SELECT stream_id, type, data FROM ${this.q}.events WHERE event_id = ANY ($1::uuid[]) ORDER BY global_position`,
      [ids],
    );
    return rows.map((r) => ({ streamId: r.stream_id, type: r.type, data: r.data }));
  }

  /** The member's inbox since its last read marker; MAILBOX.UNKNOWN_MEMBER (or UNKNOWN_TEAM) when it has none. */
  async unreadSince(team: string, memberId: string): Promise<InboxSince> {
    const fast = await this.inboxSinceHint(team, memberId);
    if (fast.open) return fast;
    const { state: registry } = await this.registry(team);
    if (!registry.inboxes.has(memberId)) {
      throw new HeadspaceError(ErrorCodes.mailboxUnknownMember, `"${memberId}" has no inbox in team "${team}"`, { field: 'memberId' });
    }
    return this.inboxSince(team, memberId, 0n);
  }

  /**
   * The member's inbox from its last read marker on, in one round trip: the projection's
   * read-through hint (a lagging value only means folding a few read copies again) joined to the
   * inbox stream's later events. `open: false` when the projection has no such inbox (yet): the
   * caller falls back to the registry, which knows whether the inbox exists.
   */
  private async inboxSinceHint(team: string, memberId: string): Promise<InboxSince & { open: boolean }> {
    const { rows } = await this.pool.query<{ hint: string; v: string | null; type: InboxEvent['type'] | null; data: InboxEvent['data'] | null }>({
      name: `hs-inbox-since-hint-${this.q}`,
      text: `SELECT i.read_through_version::text AS hint, e.stream_version::text AS v, e.type, e.data
               FROM ${this.q}.mailbox_inboxes i
               LEFT JOIN ${this.q}.events e ON e.stream_id = $3 AND e.stream_version > i.read_through_version
              WHERE i.team = $1 AND i.member_id = $2
              ORDER BY e.stream_version`,
      values: [team, memberId, inboxStreamId(team, memberId)],
    });
    if (rows.length === 0) return { open: false, from: 0n, events: [], version: 0n };
    const from = BigInt(rows[0].hint);
    const present = rows.filter((r) => r.v !== null);
    const events = present.map((r) => ({ type: r.type, data: r.data, version: BigInt(r.v!) }) as VersionedInboxEvent);
    return { open: true, from, events, version: present.length ? BigInt(present[present.length - 1].v!) : from };
  }

  /** The inbox's events after `from` (the registry-checked path, when the projection does not list the inbox yet). */
  private async inboxSince(team: string, memberId: string, from: bigint): Promise<InboxSince> {
    const history = await this.store.readStream(inboxStreamId(team, memberId), { fromVersion: from + 1n });
    const events = history.map((e) => ({ type: e.type, data: e.data, version: e.streamVersion }) as VersionedInboxEvent);
    return { from, events, version: events.length ? events[events.length - 1].version : from };
  }

  /** The events a command appended to one stream, found by their derived ids (an index lookup, whatever the stream's length). */
  async priorInStream(commandId: string, streamId: string): Promise<boolean> {
    return (await this.priorEvents(commandId, [streamId])).length > 0;
  }
}
