import { describe, expect, it } from 'vitest';
import { dsnOf, parseWebhookSpec, parseWindow, remediationBody } from './ops-commands';

describe('headspace ops helpers', () => {
  it('parses a --webhook spec, taking the secret from the environment and splitting event lists', () => {
    expect(parseWebhookSpec('id=ops,url=https://hooks.example/a?x=1,secret=env:HOOK,format=slack,events=RESOLVED|REGRESSED,min-severity=error', { HOOK: 'whsec_from_env_123' })).toEqual({
      id: 'ops',
      url: 'https://hooks.example/a?x=1',
      secret: 'whsec_from_env_123',
      format: 'slack',
      events: ['RESOLVED', 'REGRESSED'],
      minSeverity: 'error',
    });
  });

  it('refuses a misspelt key, a missing url and an unset secret variable as usage errors', () => {
    expect(() => parseWebhookSpec('id=ops,uri=https://x', {})).toThrow(/"uri=https:\/\/x" is not one of/);
    expect(() => parseWebhookSpec('id=ops', {})).toThrow(/needs at least id=… and url=…/);
    expect(() => parseWebhookSpec('id=ops,url=https://x,secret=env:NOPE', {})).toThrow(/NOPE is not set/);
  });

  it('builds the DSN from the endpoint the CLI talks to', () => {
    expect(dsnOf('https://hs.example:8443', 'abc123', '42')).toBe('https://abc123@hs.example:8443/42');
    expect(dsnOf('http://127.0.0.1:3000/', 'k', '7')).toBe('http://k@127.0.0.1:3000/7');
  });

  it('reads a verify window in seconds, minutes, hours or days, and refuses anything else as a usage error', () => {
    expect([parseWindow('600'), parseWindow('90s'), parseWindow('30m'), parseWindow('1h'), parseWindow('2D')]).toEqual([600, 90, 1_800, 3_600, 172_800]);
    expect(() => parseWindow('an hour')).toThrow(/not a duration/);
    expect(() => parseWindow('-5m')).toThrow(/not a duration/);
  });

  it('sends only the remediation settings given, under their API names', () => {
    expect(remediationBody({ team: 'red', testCommand: 'make test', verifyWindow: '1h' })).toEqual({ team: 'red', testCommand: 'make test', verifyWindowSeconds: 3_600 });
    expect(remediationBody({})).toEqual({});
  });
});
