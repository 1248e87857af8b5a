import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, exitCodeForStatus } from './api-client';
import { configPath, maskToken, readConfig, resolveSettings, writeConfig } from './config';
import { ExitCode } from './exit-codes';
import { runCli } from './program';
import { SseParser, type SseMessage } from './sse-reader';
import { formatEvent } from './tail';

const memoryIo = () => {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { out: { write: (s: string) => out.push(s) }, err: { write: (s: string) => err.push(s) } } as never,
    out: () => out.join(''),
    err: () => err.join(''),
  };
};

describe('SSE parser', () => {
  it('splits messages on blank lines whatever the line endings and chunking', () => {
    const got: SseMessage[] = [];
    const comments: string[] = [];
    const p = new SseParser((m) => got.push(m), (c) => comments.push(c));
    const text = 'retry: 2000\r\n: connected\r\n\r\nid: v1:a=1\nevent: task.claimed\ndata: {"x":\ndata: 1}\n\n: ping\n\nid: v1:a=2\rdata: two\r\r\n';
    for (const ch of text) p.push(ch);
    expect(got).toEqual([
      { id: 'v1:a=1', event: 'task.claimed', data: '{"x":\n1}', retry: undefined },
      { id: 'v1:a=2', event: undefined, data: 'two', retry: undefined },
    ]);
    expect(comments).toEqual(['connected', 'ping']);
    expect(p.lastEventId).toBe('v1:a=2');
  });
});

describe('config', () => {
  it('lives at $HEADSPACE_CONFIG, else under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ HEADSPACE_CONFIG: '/x/c.json' })).toBe('/x/c.json');
    expect(configPath({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/headspace/config.json');
    expect(configPath({ HOME: '/home/u' })).toMatch(/\.config\/headspace\/config\.json$/);
  });

  it('writes mode 0600 and lets the environment override the file', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hs-cfg-')), 'a', 'config.json');
    writeConfig(path, { endpoint: 'http://file:3000', token: 'file-token' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readConfig(path)).toEqual({ endpoint: 'http://file:3000', token: 'file-token' });
    expect(resolveSettings({}, { HEADSPACE_CONFIG: path })).toEqual({ endpoint: 'http://file:3000', token: 'file-token', team: undefined });
    expect(resolveSettings({}, { HEADSPACE_CONFIG: path, HEADSPACE_URL: 'http://env:1/', HEADSPACE_TOKEN: 'env' })).toMatchObject({ endpoint: 'http://env:1', token: 'env' });
    expect(resolveSettings({ endpoint: 'http://flag:2' }, { HEADSPACE_CONFIG: path, HEADSPACE_URL: 'http://env:1' }).endpoint).toBe('http://flag:2');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ endpoint: 'http://file:3000', token: 'file-token' });
  });

  it('explains a broken config file instead of crashing', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hs-cfg-')), 'config.json');
    writeFileSync(path, '{ not json');
    expect(() => readConfig(path)).toThrow(/not valid JSON/);
  });

  it('masks tokens', () => {
    expect(maskToken('abcdefghijklmnop')).toBe('abcd…mnop');
    expect(maskToken('short')).toBe('****');
    expect(maskToken(undefined)).toBe('(none)');
  });
});

describe('exit codes', () => {
  it('maps HTTP statuses: 401/403 → 4, other 4xx → 2, 5xx → 3', () => {
    expect([400, 401, 403, 404, 409, 500, 503].map(exitCodeForStatus)).toEqual([2, 4, 4, 2, 2, 3, 3]);
  });

  it('words a problem with its detail, field and code', () => {
    const e = new ApiError(400, { detail: 'must be 5-10 words', field: 'summary', code: 'CONTRACTS.VALIDATION_FAILED' }, 'POST', '/api/v1/teams/a/messages');
    expect(e.message).toBe('POST /api/v1/teams/a/messages failed with 400: must be 5-10 words (field: summary) [CONTRACTS.VALIDATION_FAILED]');
    expect(e.exitCode).toBe(ExitCode.apiClient);
  });

  it('returns 1 for usage errors and 0 for help, without exiting the process', async () => {
    const a = memoryIo();
    expect(await runCli(['nope'], { io: a.io, env: {} })).toBe(1);
    expect(a.err()).toContain("unknown command 'nope'");
    const b = memoryIo();
    expect(await runCli(['--help'], { io: b.io, env: {} })).toBe(0);
    expect(b.out()).toContain('tail');
    const c = memoryIo();
    expect(await runCli(['task', 'list'], { io: c.io, env: { HEADSPACE_CONFIG: '/nonexistent/c.json', HEADSPACE_URL: 'http://127.0.0.1:9' } })).toBe(1);
    expect(c.err()).toContain('Which team?');
  });
});

describe('tail line format', () => {
  it('shows time, team, type and summary on one line', () => {
    const line = formatEvent({ eventId: 'e', type: 'task.claimed', time: '2026-11-22T08:01:02.000Z', team: 'apollo', summary: "Con claimed 'Add auth migration'" });
    expect(line.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')).toMatch(/^08:01:02 apollo +task\.claimed +Con claimed 'Add auth migration'$/);
  });
});
