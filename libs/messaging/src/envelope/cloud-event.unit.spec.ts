import { describe, expect, it } from 'vitest';
import { toCloudEvent } from './cloud-event';
import type { EventEnvelope } from './event-envelope';

const envelope: EventEnvelope = {
  eventId: '0190b0b0-1d3c-7a1e-9b2a-3f4e5d6c7b8a',
  type: 'task.claimed',
  streamId: 'task-apollo.mig',
  streamVersion: '9007199254740993',
  globalPosition: '18446744073709551000',
  schemaVersion: 2,
  data: { team: 'apollo', taskId: 'mig', owner: 'con' },
  metadata: { correlationId: 'c-1', actor: 'con', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'hs=1' },
  recordedAt: '2026-01-02T03:04:05.678Z',
};

describe('toCloudEvent', () => {
  it('maps the envelope to CloudEvents 1.0 attributes: event id, owning service as source, prefixed type, stream as subject', () => {
    expect(toCloudEvent(envelope, 'team-manager')).toEqual({
      specversion: '1.0',
      id: envelope.eventId,
      source: '/headspace/team-manager',
      type: 'headspace.task.claimed',
      subject: 'task-apollo.mig',
      time: '2026-01-02T03:04:05.678Z',
      datacontenttype: 'application/json',
      dataschema: '#/components/messages/task.claimed.v2',
      data: envelope.data,
      traceparent: envelope.metadata.traceparent,
      tracestate: 'hs=1',
      hsposition: '18446744073709551000',
      hsstreamversion: '9007199254740993',
      hsschemaversion: 2,
    });
  });

  it('leaves out traceparent and tracestate when the event carries none, and never copies other metadata', () => {
    const event = toCloudEvent({ ...envelope, metadata: { correlationId: 'c-1', actor: 'con' } }, 'orchestrator');
    expect(event).not.toHaveProperty('traceparent');
    expect(event).not.toHaveProperty('tracestate');
    expect(JSON.stringify(event)).not.toContain('c-1');
    expect(event.source).toBe('/headspace/orchestrator');
  });

  it('keeps extension attribute names to lowercase letters and digits, as CloudEvents requires', () => {
    const names = Object.keys(toCloudEvent(envelope, 'team-manager'));
    expect(names.filter((n) => !/^[a-z0-9]+$/.test(n))).toEqual([]);
  });
});
