import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, HeadspaceError, type EventData, type sessionStarted } from '@headspace/contracts';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema, type AppConfig } from '../../config';
import { SessionSupervisor } from '../session-supervisor';
import { SessionSandbox } from './session-sandbox.service';

/** The gate in front of agent sessions: bubblewrap missing means no session, unless the operator said HS_SANDBOX=off. */
const config = (env: Record<string, string>): AppConfig => configSchema.parse({ DATABASE_URL: 'postgres://x@127.0.0.1/x', NATS_URL: 'nats://127.0.0.1:4222', ...env });
/** Never asked: these paths must not need the team-manager. */
const noNats = new Proxy({}, { get: () => () => Promise.reject(new Error('NATS must not be used here')) }) as unknown as NatsConnection;
let workspace: string;

const started: EventData<typeof sessionStarted> = {
  sessionId: 's-1',
  team: 'alpha',
  persona: 'con',
  kind: 'task',
  model: 'sonnet',
  effort: 'quick',
  runtime: 'built-in',
  simulated: true,
  prompt: 'x',
  startedAt: new Date().toISOString(),
};

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'hs-gate-'));
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

describe('SessionSandbox (the sandbox gate of agent sessions)', () => {
  it('where bubblewrap cannot run, refuses sessions with SANDBOX.UNAVAILABLE and says why', async () => {
    const gate = new SessionSandbox(config({ HS_SANDBOX_BWRAP: '/nonexistent/bwrap' }), noNats);
    expect(await gate.status()).toEqual({ status: 'unavailable', reason: expect.stringContaining('/nonexistent/bwrap') });
    await expect(gate.assertCanStart()).rejects.toMatchObject({ code: ErrorCodes.sandboxUnavailable });
    await expect(gate.forSession(started, workspace)).rejects.toBeInstanceOf(HeadspaceError);
  });

  it('the supervisor refuses to start a session before anything is recorded', async () => {
    const gate = new SessionSandbox(config({ HS_SANDBOX_BWRAP: '/nonexistent/bwrap' }), noNats);
    const untouched = new Proxy({}, { get: () => { throw new Error('nothing may be recorded'); } });
    const supervisor = new SessionSupervisor(untouched as never, untouched as never, 'orchestrator', untouched as never, { leaseMs: 1_000, sweepMs: 1_000 }, gate);
    await expect(supervisor.start({ ...started })).rejects.toMatchObject({ code: ErrorCodes.sandboxUnavailable });
  });

  it('HS_SANDBOX=off lets sessions start unsandboxed, and says so', async () => {
    const gate = new SessionSandbox(config({ HS_SANDBOX: 'off', HS_SANDBOX_BWRAP: '/nonexistent/bwrap' }), noNats);
    await expect(gate.assertCanStart()).resolves.toBeUndefined();
    expect(await gate.status()).toMatchObject({ status: 'off', warning: expect.stringContaining('WITHOUT a sandbox') });
    expect(await gate.forSession(started, workspace)).toBeUndefined();
  });

  it('with bubblewrap here, reports it enforced', async () => {
    const gate = new SessionSandbox(config({}), noNats);
    expect(await gate.status()).toMatchObject({ status: 'enforced', version: expect.stringMatching(/^bubblewrap /) });
    await expect(gate.assertCanStart()).resolves.toBeUndefined();
  });
});
