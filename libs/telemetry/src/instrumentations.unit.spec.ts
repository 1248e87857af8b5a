import { describe, expect, it } from 'vitest';
import { clientUrlAttributes } from './instrumentations';

describe('outgoing request URLs on spans', () => {
  it('keep the origin and drop a path or query that may carry a secret', () => {
    expect(clientUrlAttributes('https://hooks.slack.com', '/services/T000/B000/XXXXSECRET')).toEqual({
      'url.full': 'https://hooks.slack.com/REDACTED',
      'url.path': '/REDACTED',
      'url.query': '',
    });
    expect(JSON.stringify(clientUrlAttributes('https://example.com/', '/hook?token=abc'))).not.toMatch(/abc|hook/);
    expect(clientUrlAttributes('https://api.anthropic.com', '/')['url.full']).toBe('https://api.anthropic.com/');
  });
});
