import { describe, expect, it } from 'vitest';
import { parseSentryAuth, plainIngestKey, sentryKey } from './ingest-key';

describe('ingest key extraction', () => {
  it('parses X-Sentry-Auth pairs with or without the Sentry prefix', () => {
    expect(parseSentryAuth('Sentry sentry_key=abc, sentry_version=7, sentry_client=sentry.python/1.9.10')).toEqual({
      sentry_key: 'abc',
      sentry_version: '7',
      sentry_client: 'sentry.python/1.9.10',
    });
    expect(parseSentryAuth('sentry_version=7,sentry_key=k1')).toMatchObject({ sentry_key: 'k1' });
  });

  it('takes the Sentry key from the header, else ?sentry_key=, else Authorization: Sentry, else the envelope dsn', () => {
    expect(sentryKey({ 'x-sentry-auth': 'Sentry sentry_key=fromheader' }, { sentry_key: 'fromquery' })).toEqual({ publicKey: 'fromheader', field: 'X-Sentry-Auth' });
    expect(sentryKey({}, { sentry_key: 'fromquery', sentry_version: '7' })).toEqual({ publicKey: 'fromquery', field: 'sentry_key' });
    expect(sentryKey({ authorization: 'Sentry sentry_key=old' }, {})).toEqual({ publicKey: 'old', field: 'Authorization' });
    expect(sentryKey({}, {}, 'https://dsnkey@example.com/42')).toEqual({ publicKey: 'dsnkey', field: 'dsn' });
  });

  it('answers 401 naming the place when no key is given, or a malformed one', () => {
    expect(() => sentryKey({}, {})).toThrow(expect.objectContaining({ code: 'AUTH.UNAUTHENTICATED', field: 'X-Sentry-Auth' }));
    expect(() => sentryKey({ 'x-sentry-auth': 'Sentry sentry_version=7' }, {})).toThrow(expect.objectContaining({ field: 'X-Sentry-Auth' }));
    expect(() => sentryKey({}, { sentry_key: 'bad key"' })).toThrow(expect.objectContaining({ code: 'AUTH.UNAUTHENTICATED', field: 'sentry_key' }));
    expect(() => sentryKey({}, {}, 'not a url')).toThrow(expect.objectContaining({ field: 'X-Sentry-Auth' }));
    expect(() => sentryKey({ authorization: 'Bearer hst_token' }, {})).toThrow(expect.objectContaining({ code: 'AUTH.UNAUTHENTICATED' }));
  });

  it('takes the plain key from X-Headspace-Ingest-Key or Authorization: DSN, and never a bearer token', () => {
    expect(plainIngestKey({ 'x-headspace-ingest-key': ' k-1 ' })).toEqual({ publicKey: 'k-1', field: 'X-Headspace-Ingest-Key' });
    expect(plainIngestKey({ authorization: 'DSN k2' })).toEqual({ publicKey: 'k2', field: 'Authorization' });
    expect(() => plainIngestKey({ authorization: 'Bearer hst_admin' })).toThrow(expect.objectContaining({ code: 'AUTH.UNAUTHENTICATED', field: 'X-Headspace-Ingest-Key' }));
  });
});
