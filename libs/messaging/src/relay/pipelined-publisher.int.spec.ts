import { ErrorCodes } from '@headspace/contracts';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, deleteStreams, uniqueToken } from '../testing/messaging-test-kit';
import { PipelinedPublisher } from './pipelined-publisher';

const token = uniqueToken('pubpipe');
const streamA = `PUBPIPE_A_${token}`;
const streamB = `PUBPIPE_B_${token}`;
const subjectA = `pubpipe.${token}.a`;
const subjectB = `pubpipe.${token}.b`;
const data = new TextEncoder().encode('{"n":1}');
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connectNats();
  jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: streamA, subjects: [`${subjectA}.>`], duplicate_window: 60_000_000_000 });
  await jsm.streams.add({ name: streamB, subjects: [`${subjectB}.>`] });
});
afterAll(async () => {
  await deleteStreams(jsm, [streamA, streamB]);
  await nc?.close();
});

const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as { code?: string; message: string });

describe('PipelinedPublisher', () => {
  it('publishes many messages without waiting for each ack: every one is stored once, in publish order, and a repeated msgID is a duplicate', async () => {
    const publisher = new PipelinedPublisher(nc, 5_000);
    try {
      const ids = Array.from({ length: 200 }, (_, i) => `${token}-m${i}`);
      const acks = await Promise.all(ids.map((msgID) => publisher.publish(`${subjectA}.x`, data, { msgID, expectStream: streamA, headers: headers() })));
      expect(acks.every((ack) => ack.stream === streamA && !ack.duplicate)).toBe(true);
      const seqs = acks.map((ack) => ack.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(200);

      const again = await publisher.publish(`${subjectA}.x`, data, { msgID: ids[17], expectStream: streamA, headers: headers() });
      expect(again).toMatchObject({ stream: streamA, seq: acks[17].seq, duplicate: true });
      expect((await jsm.streams.info(streamA)).state.messages).toBe(200);
    } finally {
      publisher.close();
    }
  });

  it('fails with MESSAGING.NO_RESPONDERS when no stream captures the subject', async () => {
    const publisher = new PipelinedPublisher(nc, 5_000);
    try {
      const error = await rejection(publisher.publish(`pubpipe.${token}.nowhere`, data, { msgID: `${token}-n`, expectStream: streamA, headers: headers() }));
      expect(error?.code).toBe(ErrorCodes.serviceUnavailable);
      expect(error?.message).toContain(`pubpipe.${token}.nowhere`);
    } finally {
      publisher.close();
    }
  });

  it('fails with MESSAGING.PUBLISH_REJECTED, storing nothing, when another stream than the expected one captures the subject', async () => {
    const publisher = new PipelinedPublisher(nc, 5_000);
    try {
      const error = await rejection(publisher.publish(`${subjectB}.x`, data, { msgID: `${token}-w`, expectStream: streamA, headers: headers() }));
      expect(error?.code).toBe(ErrorCodes.publishRejected);
      expect(error?.message).toContain('expected stream');
      expect((await jsm.streams.info(streamB)).state.messages).toBe(0);
    } finally {
      publisher.close();
    }
  });

  it('fails with MESSAGING.TIMEOUT when no ack comes back in time, and goes on publishing', async () => {
    // A plain subscriber (not a stream) takes the message and never answers: no PubAck, no 503.
    const silent = nc.subscribe(`pubpipe.${token}.silent`);
    const publisher = new PipelinedPublisher(nc, 100);
    try {
      const started = Date.now();
      const error = await rejection(publisher.publish(`pubpipe.${token}.silent`, data, { msgID: `${token}-t`, expectStream: streamA, headers: headers() }));
      expect(error?.code).toBe(ErrorCodes.requestTimeout);
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
      const stored = await publisher.publish(`${subjectA}.after`, data, { msgID: `${token}-after`, expectStream: streamA, headers: headers() });
      expect(stored.stream).toBe(streamA);
    } finally {
      silent.unsubscribe();
      publisher.close();
    }
  });

  it('fails what still waits for an ack when closed, and refuses new publishes', async () => {
    const silent = nc.subscribe(`pubpipe.${token}.closing`);
    const publisher = new PipelinedPublisher(nc, 5_000);
    const waiting = rejection(publisher.publish(`pubpipe.${token}.closing`, data, { msgID: `${token}-c`, expectStream: streamA, headers: headers() }));
    await nc.flush();
    publisher.close();
    silent.unsubscribe();
    expect((await waiting)?.code).toBe(ErrorCodes.disconnected);
    expect((await rejection(publisher.publish(`${subjectA}.late`, data, { msgID: `${token}-l`, expectStream: streamA, headers: headers() })))?.code).toBe(ErrorCodes.disconnected);
  });
});
