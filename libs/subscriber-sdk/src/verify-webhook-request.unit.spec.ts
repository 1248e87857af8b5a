import { signWebhook } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import type { HeadspaceEvent } from './headspace-event';
import { SubscriberErrorCodes, WebhookVerificationError } from './subscriber-errors';
import { verifyWebhookRequest } from './verify-webhook-request';

const secret = 'whsec_test_0123456789';
const now = 1_800_000_000;
const event = {
  specversion: '1.0',
  id: '6f1c8a52-9a57-4e0c-9d53-0f7b6c1f7a10',
  source: '/headspace/team-manager',
  type: 'headspace.task.claimed',
  subject: 'task-apollo.1',
  time: '2027-01-15T08:00:00.000Z',
  datacontenttype: 'application/json',
  dataschema: '#/components/messages/task.claimed.v1',
  data: { team: 'apollo', taskId: '1', owner: 'con', attempt: 1 },
  hsposition: '12',
  hsstreamversion: '2',
  hsschemaversion: 1,
};
const body = JSON.stringify(event);
const signed = (b: string | Uint8Array = body, t = now) => ({ 'Headspace-Signature': signWebhook(secret, b, t) });

describe('verifyWebhookRequest', () => {
  it('returns the CloudEvent of a correctly signed delivery, typed by its event type', () => {
    const result = verifyWebhookRequest(secret, body, signed(), { now });
    expect(result).not.toBeInstanceOf(Error);
    const received = result as HeadspaceEvent;
    expect(received).toEqual(event);
    if (received.type === 'headspace.task.claimed') expect(received.data.owner).toBe('con');
  });

  it('reads the header case-insensitively from Node headers, fetch Headers and raw bytes alike', () => {
    const bytes = new TextEncoder().encode(body);
    expect(verifyWebhookRequest(secret, bytes, { 'headspace-signature': signWebhook(secret, bytes, now) }, { now })).toEqual(event);
    expect(verifyWebhookRequest(secret, body, new Headers(signed()), { now })).toEqual(event);
  });

  it('rejects a body changed after signing as a mismatch', () => {
    const result = verifyWebhookRequest(secret, body.replace('"con"', '"eve"'), signed(), { now });
    expect(result).toBeInstanceOf(WebhookVerificationError);
    expect(result).toMatchObject({ reason: 'mismatch', code: SubscriberErrorCodes.signatureMismatch });
  });

  it('rejects another secret, a missing header, a malformed header and an old timestamp, each with its own code', () => {
    expect(verifyWebhookRequest('whsec_other', body, signed(), { now })).toMatchObject({ code: SubscriberErrorCodes.signatureMismatch });
    expect(verifyWebhookRequest(secret, body, {}, { now })).toMatchObject({ code: SubscriberErrorCodes.signatureMissing });
    expect(verifyWebhookRequest(secret, body, { 'Headspace-Signature': 'v1=zz' }, { now })).toMatchObject({ code: SubscriberErrorCodes.signatureMalformed });
    expect(verifyWebhookRequest(secret, body, signed(body, now - 301), { now })).toMatchObject({ code: SubscriberErrorCodes.signatureExpired });
  });

  it('rejects a signed body that is not a Headspace CloudEvent', () => {
    const other = JSON.stringify({ hello: 'world' });
    expect(verifyWebhookRequest(secret, other, signed(other), { now })).toMatchObject({ reason: 'not-a-cloud-event', code: SubscriberErrorCodes.bodyNotCloudEvent });
    expect(verifyWebhookRequest(secret, 'not json', signed('not json'), { now })).toMatchObject({ reason: 'not-a-cloud-event' });
  });
});
