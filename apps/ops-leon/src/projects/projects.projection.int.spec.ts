import { randomBytes } from 'node:crypto';
import { OPS_PROJECT_REGISTRY_STREAM, opsProjectStreamId } from '@headspace/contracts';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { opsLeonProjectionSpec } from '../testing/ops-leon-harness';
import { ProjectsProjection } from './projects.projection';

let given: Awaited<ReturnType<typeof opsLeonProjectionSpec<ProjectsProjection>>>;
beforeAll(async () => (given = await opsLeonProjectionSpec('olprojectsproj', (store) => new ProjectsProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const at = (minute: number) => `2025-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
const settings = { displayName: 'Shop', repository: '/srv/shop', trusted: false, environments: ['production'] };

function newProject() {
  const project = `p${randomBytes(4).toString('hex')}`;
  const projectId = String(Math.floor(Math.random() * 1e9) + 1);
  return {
    project,
    projectId,
    created: inStream(OPS_PROJECT_REGISTRY_STREAM, { type: 'project.registered', data: { project, projectId, at: at(0) } }),
    stream: (...events: Array<{ type: string; data: Record<string, unknown> }>) => inStream(opsProjectStreamId(project), ...events.map((e) => ({ ...e, data: { project, ...e.data } }))),
    createdEvent: { type: 'project.created', data: { projectId, ...settings, createdBy: 'operator', at: at(0) } },
    key: (keyId: string, minute: number) => ({ type: 'project.ingest-key-created', data: { keyId, keyHash: 'a'.repeat(64), hint: 'ab12', label: 'ci', createdBy: 'operator', at: at(minute) } }),
  };
}

const projectRow = (project: string) => ({ sql: `SELECT * FROM ops_leon.projects WHERE project = $1`, params: [project] });
const keysOf = (project: string) => ({ sql: `SELECT * FROM ops_leon.ingest_keys WHERE project = $1 ORDER BY key_id`, params: [project] });

describe('projects projection', () => {
  it('lists a created project with its settings, and the changed ones after an update', async () => {
    const p = newProject();
    const remediation = { team: 'red', testCommand: 'make test', verifyWindowSeconds: 600 };
    await spec()
      .given(p.created, p.stream(p.createdEvent))
      .when(p.stream({ type: 'project.updated', data: { ...settings, ...remediation, trusted: true, environments: ['production', 'staging'], updatedBy: 'admin', at: at(5) } }))
      .then(projectRow(p.project), [
        {
          project: p.project,
          project_id: p.projectId,
          display_name: 'Shop',
          repository: '/srv/shop',
          trusted: true,
          active_keys: 0,
          environments: ['production', 'staging'],
          team: 'red',
          test_command: 'make test',
          verify_window_seconds: 600,
          created_at: new Date(at(0)),
          updated_at: new Date(at(5)),
        },
      ]);
  });

  it('lists ingest keys without their hashes, and marks a revoked one', async () => {
    const p = newProject();
    await spec()
      .given(p.stream(p.createdEvent, p.key('key_a', 1), p.key('key_b', 2)))
      .when(p.stream({ type: 'project.ingest-key-revoked', data: { keyId: 'key_a', revokedBy: 'admin', at: at(3) } }))
      .then(keysOf(p.project), [
        { key_id: 'key_a', project: p.project, hint: 'ab12', label: 'ci', created_by: 'operator', created_at: new Date(at(1)), revoked_at: new Date(at(3)) },
        { key_id: 'key_b', project: p.project, hint: 'ab12', label: 'ci', created_by: 'operator', created_at: new Date(at(2)), revoked_at: null },
      ]);
    // Recorded without remediation settings: no team, `npm test`, a one-hour window.
    await spec().when().then(projectRow(p.project), [{ active_keys: 1, team: null, test_command: 'npm test', verify_window_seconds: 3_600 }]);
  });

  it('rebuilt from position 0 equals live', async () => {
    const p = newProject();
    await spec().given(p.created, p.stream(p.createdEvent, p.key('key_c', 1))).then(keysOf(p.project), [{ key_id: 'key_c' }]);
    await spec().rebuiltEqualsLive();
  });
});
