import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, inboxStreamId, mailboxStreamId, teamStreamId, type EventMetadata } from '@headspace/contracts';
import { ConcurrencyError, deterministicEventId, EventStore, foldEvents, quoteIdent, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import { mailboxDecider, type MailboxEvent, type MailboxState } from './mailbox.decider';

/** The stream an event of the mailbox decider belongs to: copies go to their recipient's inbox. */
export function streamOf(team: string, event: MailboxEvent): string {
  return event.type === 'mailbox.message-delivered' ? inboxStreamId(team, event.data.recipient) : mailboxStreamId(team);
}

export const commandMetadata = (ctx: RequestContext, commandId: string): EventMetadata => ({
  correlationId: ctx.correlationId,
  causationId: ctx.causationId ?? commandId,
  traceparent: ctx.traceparent,
  tracestate: ctx.tracestate,
});

/** Version races and a concurrent duplicate of the same command (the retry then finds it recorded). */
export const isMailboxRetryable = (error: unknown) =>
  error instanceof ConcurrencyError || ['40001', '40P01', '23505'].includes((error as { code?: string })?.code ?? '');

/** Reads the team's mailbox registry and appends a decision that may span the registry and several inboxes. */
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

  /** The registry state and version; MAILBOX.UNKNOWN_TEAM when neither it nor the team exists. */
  async registry(team: string): Promise<{ state: MailboxState; version: bigint }> {
    const history = (await this.store.readStream(mailboxStreamId(team))) as Array<RecordedEvent & MailboxEvent>;
    if (history.length === 0 && (await this.store.streamVersion(teamStreamId(team))) === null) {
      throw new HeadspaceError(ErrorCodes.mailboxUnknownTeam, `Team "${team}" does not exist`, { field: 'team' });
    }
    return { state: foldEvents(mailboxDecider, history), version: history.length ? history[history.length - 1].streamVersion : 0n };
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

  /** Where a take may start reading an inbox stream: every copy up to this version is read (from the projection; a lag only lowers it). */
  async readThrough(team: string, memberId: string): Promise<bigint> {
    const { rows } = await this.pool.query<{ v: string }>(
      `SELECT read_through_version::text AS v FROM ${this.q}.mailbox_inboxes WHERE team = $1 AND member_id = $2`,
      [team, memberId],
    );
    return rows.length ? BigInt(rows[0].v) : 0n;
  }

  /** The events a command appended to one stream, found by their derived ids (an index lookup, whatever the stream's length). */
  async priorInStream(commandId: string, streamId: string): Promise<boolean> {
    return (await this.priorEvents(commandId, [streamId])).length > 0;
  }

  /**
   * Appends a decision in one transaction: the registry events with the exact version the decision
   * was made at (shutdown requests are answered once), then each inbox's copy (inboxes in sorted
   * order, so concurrent broadcasts lock them in the same order). A single-stream decision is one
   * plain append.
   */
  async appendDecision(team: string, registryVersion: bigint, events: MailboxEvent[], commandId: string, metadata: EventMetadata): Promise<void> {
    const byStream = new Map<string, MailboxEvent[]>();
    for (const event of events) {
      const stream = streamOf(team, event);
      byStream.set(stream, [...(byStream.get(stream) ?? []), event]);
    }
    const registryId = mailboxStreamId(team);
    const expectedFor = (stream: string) => (stream === registryId ? (registryVersion === 0n ? ('no-stream' as const) : registryVersion) : ('any' as const));
    const streams = [...byStream.keys()].sort((a, b) => (a === registryId ? -1 : b === registryId ? 1 : a < b ? -1 : a > b ? 1 : 0));
    if (streams.length === 1) {
      await this.store.append(streams[0], byStream.get(streams[0])!, { expected: expectedFor(streams[0]), commandId, metadata });
      return;
    }
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      for (const stream of streams) await this.store.append(stream, byStream.get(stream)!, { expected: expectedFor(stream), commandId, metadata, client });
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
