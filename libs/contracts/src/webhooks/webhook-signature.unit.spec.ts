import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from './webhook-signature';

describe('webhook signatures', () => {
  const body = '{"id":"e1","type":"headspace.run.completed"}';

  it('verifies a signature made with the same secret over the same body and time', () => {
    expect(verifyWebhook('s3cret', body, signWebhook('s3cret', body, 1_000), { now: 1_010 })).toEqual({ ok: true, timestamp: 1_000 });
  });

  it('refuses a changed body, another secret, an old timestamp and a header that is not one', () => {
    const header = signWebhook('s3cret', body, 1_000);
    expect(verifyWebhook('s3cret', `${body} `, header, { now: 1_000 })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyWebhook('other', body, header, { now: 1_000 })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyWebhook('s3cret', body, header.replace('t=1000', 't=1001'), { now: 1_000 })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyWebhook('s3cret', body, header, { now: 1_000 + 301 })).toEqual({ ok: false, reason: 'expired' });
    expect(verifyWebhook('s3cret', body, 't=1000,v1=zz', { now: 1_000 })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyWebhook('s3cret', body, undefined)).toEqual({ ok: false, reason: 'missing' });
  });

  it('accepts either secret while one is being rotated', () => {
    const header = signWebhook('new', body, 1_000, ['old']);
    expect(verifyWebhook('old', body, header, { now: 1_000 }).ok).toBe(true);
    expect(verifyWebhook('new', body, header, { now: 1_000 }).ok).toBe(true);
  });
});
