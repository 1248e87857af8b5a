import { DeciderSpec } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { acceptsKey, projectDecider, registryDecider, type ProjectEvent } from './project.decider';

const now = '2025-03-01T10:00:00.000Z';
const settings = { displayName: 'Shop', repository: 'https://git.example.com/shop.git', trusted: false, environments: ['production'], testCommand: 'npm test', verifyWindowSeconds: 3_600 };
const created: ProjectEvent = { type: 'project.created', data: { project: 'shop', projectId: '1', ...settings, createdBy: 'operator', at: now } };
const keyCreated = (keyId: string, keyHash: string): ProjectEvent => ({
  type: 'project.ingest-key-created',
  data: { project: 'shop', keyId, keyHash, hint: 'ab12', label: 'default', createdBy: 'operator', at: now },
});
const code = (expected: string) => (error: unknown) => (error as { code?: string }).code === expected;
const fold = (events: ProjectEvent[]) => events.reduce(projectDecider.evolve, projectDecider.initialState());

describe('project registry decider', () => {
  it('registers a new name with the next numeric id and starts its stream with project.created', () => {
    const registered = (project: string, projectId: string): ProjectEvent => ({ type: 'project.registered', data: { project, projectId, at: now } });
    DeciderSpec.for(registryDecider)
      .given([registered('blog', '1')])
      .when({ type: 'create', project: 'shop', ...settings, createdBy: 'operator', now })
      .then([registered('shop', '2'), { type: 'project.created', data: { project: 'shop', projectId: '2', ...settings, createdBy: 'operator', at: now } }]);
  });

  it('refuses a name that is taken with OPS.PROJECT_ALREADY_EXISTS', () => {
    DeciderSpec.for(registryDecider)
      .given([{ type: 'project.registered', data: { project: 'shop', projectId: '1', at: now } }])
      .when({ type: 'create', project: 'shop', ...settings, createdBy: 'operator', now })
      .thenThrows(code('OPS.PROJECT_ALREADY_EXISTS'));
  });
});

describe('project decider', () => {
  it('updates only the settings given, recording all of them', () => {
    DeciderSpec.for(projectDecider)
      .given([created])
      .when({ type: 'update', trusted: true, updatedBy: 'admin', now })
      .then([{ type: 'project.updated', data: { project: 'shop', ...settings, trusted: true, updatedBy: 'admin', at: now } }]);
  });

  it('sets the team, test command and verify window, keeping the settings not given', () => {
    DeciderSpec.for(projectDecider)
      .given([created])
      .when({ type: 'update', team: 'red', testCommand: 'make test', verifyWindowSeconds: 600, updatedBy: 'admin', now })
      .then([{ type: 'project.updated', data: { project: 'shop', ...settings, team: 'red', testCommand: 'make test', verifyWindowSeconds: 600, updatedBy: 'admin', at: now } }]);
    DeciderSpec.for(projectDecider)
      .given([created, { type: 'project.updated', data: { project: 'shop', ...settings, team: 'red', updatedBy: 'admin', at: now } }])
      .when({ type: 'update', trusted: true, updatedBy: 'admin', now })
      .then([{ type: 'project.updated', data: { project: 'shop', ...settings, team: 'red', trusted: true, updatedBy: 'admin', at: now } }]);
  });

  it('gives a project recorded before the remediation settings no team, `npm test` and a one-hour window', () => {
    const { testCommand: _t, verifyWindowSeconds: _v, ...old } = settings;
    const state = fold([{ type: 'project.created', data: { project: 'shop', projectId: '1', ...old, createdBy: 'operator', at: now } }]);
    expect(state).toMatchObject({ status: 'active', testCommand: 'npm test', verifyWindowSeconds: 3_600 });
    expect(state).not.toHaveProperty('team');
  });

  it('refuses to change a project that does not exist with OPS.PROJECT_NOT_FOUND', () => {
    DeciderSpec.for(projectDecider).given([]).when({ type: 'update', trusted: true, updatedBy: 'a', now }).thenThrows(code('OPS.PROJECT_NOT_FOUND'));
  });

  it('revokes a key once; an unknown key is OPS.INGEST_KEY_NOT_FOUND, a revoked one OPS.INGEST_KEY_ALREADY_REVOKED', () => {
    const revoked: ProjectEvent = { type: 'project.ingest-key-revoked', data: { project: 'shop', keyId: 'k1', revokedBy: 'admin', at: now } };
    DeciderSpec.for(projectDecider).given([created, keyCreated('k1', 'a'.repeat(64))]).when({ type: 'revoke-key', keyId: 'k1', revokedBy: 'admin', now }).then([revoked]);
    DeciderSpec.for(projectDecider).given([created]).when({ type: 'revoke-key', keyId: 'k1', revokedBy: 'admin', now }).thenThrows(code('OPS.INGEST_KEY_NOT_FOUND'));
    DeciderSpec.for(projectDecider)
      .given([created, keyCreated('k1', 'a'.repeat(64)), revoked])
      .when({ type: 'revoke-key', keyId: 'k1', revokedBy: 'admin', now })
      .thenThrows(code('OPS.INGEST_KEY_ALREADY_REVOKED'));
  });

  it('accepts only a live key of the project', () => {
    const state = fold([created, keyCreated('k1', 'a'.repeat(64)), keyCreated('k2', 'b'.repeat(64))]);
    expect(acceptsKey(state, 'a'.repeat(64))).toBe(true);
    expect(acceptsKey(state, 'c'.repeat(64))).toBe(false);
    const afterRevoke = projectDecider.evolve(state, { type: 'project.ingest-key-revoked', data: { project: 'shop', keyId: 'k1', revokedBy: 'x', at: now } });
    expect(acceptsKey(afterRevoke, 'a'.repeat(64))).toBe(false);
    expect(acceptsKey(afterRevoke, 'b'.repeat(64))).toBe(true);
  });
});
