import { ErrorCodes, ValidationError } from '@headspace/contracts';
import type { RecordedEvent } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope, toEnvelope } from './event-envelope';

const recorded: RecordedEvent = {
  eventId: '0190b0b0-1d3c-7a1e-9b2a-3f4e5d6c7b8a',
  streamId: 'task-42',
  streamVersion: 9_007_199_254_740_993n,
  globalPosition: 18_446_744_073_709_551_000n,
  transactionId: '123',
  category: 'task',
  type: 'task.claimed',
  schemaVersion: 2,
  data: { by: 'con' },
  metadata: { correlationId: 'c-1' },
  recordedAt: new Date('2026-01-02T03:04:05.678Z'),
};

describe('event envelope', () => {
  it('round-trips an event with int8 positions beyond Number precision and its transaction id as decimal strings', () => {
    const bytes = encodeEnvelope(toEnvelope(recorded));
    const json = JSON.parse(new TextDecoder().decode(bytes));
    expect(json.globalPosition).toBe('18446744073709551000');
    expect(json.transactionId).toBe('123');
    const { category: _c, ...expected } = recorded;
    expect(decodeEnvelope(bytes)).toEqual(expected);
  });

  it('decodes a message relayed before envelopes carried the transaction id', () => {
    const { transactionId: _tx, ...older } = toEnvelope(recorded);
    const decoded = decodeEnvelope(new TextEncoder().encode(JSON.stringify(older)));
    expect(decoded).not.toHaveProperty('transactionId');
    expect(decoded.globalPosition).toBe(recorded.globalPosition);
  });

  it('rejects a body that is not an envelope with a ValidationError naming the field', () => {
    const bad = new TextEncoder().encode(JSON.stringify({ ...toEnvelope(recorded), streamVersion: 3 }));
    const error = (() => {
      try {
        decodeEnvelope(bad);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe(ErrorCodes.validationFailed);
    expect((error as ValidationError).field).toBe('streamVersion');
    expect(() => decodeEnvelope(new TextEncoder().encode('not json'))).toThrow(ValidationError);
  });
});
