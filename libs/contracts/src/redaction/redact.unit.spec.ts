import { describe, expect, it } from 'vitest';
import { createRedactor, secretEnvValues } from './redact';
import { isSecretName } from './secret-names';

const { text: redact, deep } = createRedactor();

// Fixtures are assembled from parts so this file does not itself look like it holds keys.
const ANTHROPIC = ['sk', 'ant', 'api03', 'Xk9_Qm2vLw8RtY4uZp7NcB3eHs6JdF1gA0-oK5iTy'].join('-');
const OPENAI = ['sk', 'proj', 'N4q8Lz2mWv7XcR5tYb9KpD3sFh6JgA1e'].join('-');
const AWS_ID = 'AKIA' + 'IOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/' + 'bPxRfiCYEXAMPLEKEY';
const GITHUB = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const FINE_GRAINED = 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz';
const SLACK = 'xoxb-' + '1234567890-0987654321-AbCdEfGhIjKl';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.' + 'eyJzdWIiOiIxMjM0NTY3ODkwIn0.' + 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const PEM = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB', 'aNZJTbm8vG2o1/ZIp4GXdzc0SGf5dXl1aQ==', '-----END RSA PRIVATE KEY-----'].join('\n');

describe('secret redaction', () => {
  it('replaces each known key format by its kind', () => {
    expect(redact(`key ${ANTHROPIC} end`)).toBe('key [redacted:anthropic-key] end');
    expect(redact(`key ${OPENAI}.`)).toBe('key [redacted:openai-key].');
    expect(redact(`${GITHUB} and ${FINE_GRAINED}`)).toBe('[redacted:github-token] and [redacted:github-token]');
    expect(redact(`slack ${SLACK}`)).toBe('slack [redacted:slack-token]');
    expect(redact(`token ${JWT} ok`)).toBe('token [redacted:jwt] ok');
    expect(redact(`npm ${'npm_' + 'a'.repeat(18) + '1'.repeat(18)}`)).toBe('npm [redacted:npm-token]');
    expect(redact(`seed ${'SU' + 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.repeat(2).slice(0, 56)}\n`)).toBe('seed [redacted:nats-seed]\n');
  });

  it('redacts an AWS access key id and the secret access key next to it, not a commit id', () => {
    const credentials = `[default]\naws_access_key_id = ${AWS_ID}\naws_secret_access_key = ${AWS_SECRET}\n`;
    const out = redact(credentials);
    expect(out).toBe('[default]\naws_access_key_id = [redacted:aws-access-key-id]\naws_secret_access_key = [redacted:aws-secret-access-key]\n');
    const sha = '4f2d0c8e9a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d';
    expect(redact(`${AWS_ID} at ${sha}`)).toBe(`[redacted:aws-access-key-id] at ${sha}`);
    expect(redact(`far away ${AWS_SECRET}`)).toBe(`far away ${AWS_SECRET}`);
  });

  it('redacts a PEM private key whole, and a truncated one up to the end of its body', () => {
    expect(redact(`before\n${PEM}\nafter`)).toBe('before\n[redacted:private-key]\nafter');
    const truncated = PEM.split('\n').slice(0, 3).join('\n');
    expect(redact(`${truncated}\n\n[output truncated]`)).toBe('[redacted:private-key]\n\n[output truncated]');
    const publicKey = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----';
    expect(redact(publicKey)).toBe(publicKey);
  });

  it('keeps the user of a URL and redacts its password', () => {
    expect(redact('postgres://app:hunter2hunter@db:5432/x')).toBe('postgres://app:[redacted:password]@db:5432/x');
    expect(redact('see https://example.com/a:b@c and nats://127.0.0.1:4222')).toBe('see https://example.com/a:b@c and nats://127.0.0.1:4222');
    expect(redact('/api/1/envelope/?sentry_key=abc123&x=1')).toBe('/api/1/envelope/?sentry_key=[redacted:query-param]&x=1');
  });

  it('redacts bearer tokens and Authorization headers but not the word bearer', () => {
    expect(redact('Authorization: Bearer abc.def-123')).toBe('Authorization: Bearer [redacted:authorization]');
    expect(redact('curl -H "authorization: Basic dXNlcjpwYXNz"')).toBe('curl -H "authorization: Basic [redacted:authorization]"');
    expect(redact('sent Bearer 9f8e7d6c5b4a')).toBe('sent Bearer [redacted:bearer-token]');
    expect(redact('Bearer authentication is used')).toBe('Bearer authentication is used');
  });

  it('redacts the values of secret-named .env and JSON assignments, keeps other names and references', () => {
    const env = 'DATABASE_URL=postgres://u:p@h/db\nGITHUB_TOKEN="abc"\nexport MY_SECRET=s3cr3t\nPORT=3000\nPASSWORD=$FROM_VAULT\n';
    expect(redact(env)).toBe(
      'DATABASE_URL=[redacted:assignment]\nGITHUB_TOKEN="[redacted:assignment]"\nexport MY_SECRET=[redacted:assignment]\nPORT=3000\nPASSWORD=$FROM_VAULT\n',
    );
    expect(redact('{"SecretAccessKey": "abc/def", "Region": "eu-west-1"}')).toBe('{"SecretAccessKey": "[redacted:assignment]", "Region": "eu-west-1"}');
    expect(redact('mysql --password=topsecret db')).toBe('mysql --password=[redacted:assignment] db');
    // Code with spaces around `=` is not an .env assignment.
    expect(redact('const token = readToken();')).toBe('const token = readToken();');
  });

  it("redacts the literal values of the process's secret environment variables", () => {
    const env = { MY_SERVICE_TOKEN: 'plain-looking-value-42', DATABASE_URL: 'postgres://svc:longpassword1@db/x', SHORT_SECRET: 'abc', HOME: '/root/home-dir' };
    const { text } = createRedactor({ env });
    expect(text('got plain-looking-value-42 back')).toBe('got [redacted:env:MY_SERVICE_TOKEN] back');
    expect(text('pw longpassword1 here')).toBe('pw [redacted:env:DATABASE_URL] here');
    expect(text('abc in /root/home-dir')).toBe('abc in /root/home-dir');
    expect(secretEnvValues(env).map(([, name]) => name)).toEqual(['DATABASE_URL', 'MY_SERVICE_TOKEN', 'DATABASE_URL']);
  });

  it('is idempotent and leaves ordinary text alone', () => {
    const mixed = `${ANTHROPIC}\n${PEM}\nDATABASE_URL=postgres://u:pw@h/db\nAuthorization: Bearer x1y2z3w4\n${AWS_ID} ${AWS_SECRET}`;
    const once = redact(mixed);
    expect(redact(once)).toBe(once);
    const ordinary = 'src/slugify.mjs: 2 tests pass; git log --oneline; sk-learn-compatibility-matrix; MAX=3';
    expect(redact(ordinary)).toBe(ordinary);
  });

  it('redacts strings inside nested values without changing their shape, keeping opaque keys', () => {
    const value = { n: 1, ok: true, blocks: [{ type: 'text', text: `cat: ${ANTHROPIC}` }, { type: 'thinking', thinking: 'hm', signature: `sig ${ANTHROPIC}` }] };
    const out = deep(value, { keepKeys: new Set(['signature']) });
    expect(out).toEqual({ n: 1, ok: true, blocks: [{ type: 'text', text: 'cat: [redacted:anthropic-key]' }, { type: 'thinking', thinking: 'hm', signature: `sig ${ANTHROPIC}` }] });
    const clean = { a: ['x', { b: 'y' }] };
    expect(deep(clean)).toBe(clean);
  });

  it('shares one list of secret variable names with the agent shell scrubbing', () => {
    expect(['ANTHROPIC_API_KEY', 'DATABASE_URL', 'GITHUB_TOKEN', 'PGPASSWORD', 'SENTRY_DSN', 'aws_secret_access_key'].every(isSecretName)).toBe(true);
    expect(['PATH', 'HOME', 'PORT', 'NODE_ENV'].some(isSecretName)).toBe(false);
  });

  it('stays linear on hostile 30 KB tool outputs (times printed, not asserted)', () => {
    const hostile = {
      'sk- runs': 'sk-'.repeat(10_000),
      'eyJ runs': 'eyJa-'.repeat(6_000),
      'URL schemes': 'a.'.repeat(15_000),
      'unterminated PEM headers': '-----BEGIN PRIVATE KEY-----\n'.repeat(1_100),
      'AWS ids': `${AWS_ID} `.repeat(1_400),
      assignments: 'A_TOKEN='.repeat(3_700),
      'long identifier': 'x'.repeat(30_000),
      'mixed log': `${'x'.repeat(200)} DATABASE_URL=postgres://u:pw@h/db ${ANTHROPIC}\n`.repeat(100),
    };
    const rows: string[] = [];
    for (const [name, input] of Object.entries(hostile)) {
      redact(input);
      const started = performance.now();
      for (let i = 0; i < 5; i++) redact(input);
      const ms = (performance.now() - started) / 5;
      rows.push(`${name.padEnd(26)} ${String(input.length).padStart(6)} chars ${ms.toFixed(2)} ms`);
      expect(redact(input).length).toBeGreaterThan(0);
    }
    console.log(`redaction of hostile inputs (mean of 5):\n${rows.join('\n')}`);
  });
});
