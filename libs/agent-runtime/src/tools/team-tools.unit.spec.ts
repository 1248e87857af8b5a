import { beforeEach, describe, expect, it } from 'vitest';
import { afterEach } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { InMemoryToolCallJournal, ToolRegistry } from './registry';
import { createTeamTools, TEAM_TOOL_NAMES } from './team-tools';
import { FakeTeamPort } from './testing/fake-team-port';
import { makeTempDir, removeDir } from './testing/temp-workspace';

describe('team tools over a TeamToolsPort', () => {
  let root: string;
  let team: FakeTeamPort;
  let registry: ToolRegistry;
  beforeEach(async () => {
    root = await makeTempDir();
    team = new FakeTeamPort(['con', 'al', 'may']);
    registry = new ToolRegistry({ tools: createTeamTools(team), policy: { tools: ['Read'] }, journal: new InMemoryToolCallJournal() });
  });
  afterEach(() => removeDir(root));
  const as = (agentId: string) => ({ workspaceRoot: root, agentId, teamId: 'alpha', sessionId: `sess-${agentId}` });
  let n = 0;
  const call = (agentId: string, name: string, input: unknown) => registry.dispatch({ id: `toolu_${++n}`, name, input }, as(agentId));

  it('defines the eleven team tools, usable whatever the manifest allowlist says', () => {
    expect(registry.apiTools().map((t) => t.name)).toEqual([...TEAM_TOOL_NAMES]);
  });

  it('creates, lists, claims and completes tasks as the calling agent', async () => {
    const created = await call('gavin', 'create_tasks', { tasks: [{ title: 'Add login' }, { title: 'Add logout', dependencies: ['task-1'] }] });
    expect(JSON.parse(created.result.content)).toEqual({ taskIds: ['task-1', 'task-2'] });
    const claimed = await call('con', 'claim_task', { task_id: 'task-1' });
    expect(JSON.parse(claimed.result.content)).toMatchObject({ id: 'task-1', status: 'claimed', assignee: 'con' });
    const pending = await call('al', 'list_tasks', { status: 'pending' });
    expect(JSON.parse(pending.result.content).map((t: { id: string }) => t.id)).toEqual(['task-2']);
    const done = await call('con', 'complete_task', { task_id: 'task-1', summary: 'login works' });
    expect(JSON.parse(done.result.content)).toMatchObject({ status: 'complete' });
    expect(team.calls.find((c) => c.method === 'claimTask')?.caller).toMatchObject({ agentId: 'con', teamId: 'alpha', sessionId: 'sess-con' });
  });

  it('gives a held task back with the reason, for a teammate to claim; only its holder can', async () => {
    await call('gavin', 'create_tasks', { tasks: [{ title: 'Add login' }] });
    await call('con', 'claim_task', { task_id: 'task-1' });
    expect((await call('al', 'release_task', { task_id: 'task-1', reason: 'not mine' })).result.code).toBe('TASK.NOT_OWNER');
    const released = await call('con', 'release_task', { task_id: 'task-1', reason: 'The OAuth provider needs credentials I do not have' });
    expect(JSON.parse(released.result.content)).toMatchObject({ id: 'task-1', status: 'pending', failedApproaches: ['The OAuth provider needs credentials I do not have'] });
    expect(JSON.parse((await call('al', 'claim_task', { task_id: 'task-1' })).result.content)).toMatchObject({ status: 'claimed', assignee: 'al' });
    expect((await call('al', 'release_task', { task_id: 'task-1' })).result.code).toBe(ErrorCodes.toolInputInvalid);
  });

  it('turns a port refusal into an error result carrying its code', async () => {
    await call('gavin', 'create_tasks', { tasks: [{ title: 'Add login' }] });
    await call('con', 'claim_task', { task_id: 'task-1' });
    const second = await call('al', 'claim_task', { task_id: 'task-1' });
    expect(second.result).toMatchObject({ isError: true, code: 'TASK.ALREADY_CLAIMED' });
    expect(second.result.content).toContain('held by con');
  });

  it('sends and broadcasts messages', async () => {
    expect((await call('con', 'send_message', { to: 'al', body: 'schema is ready', type: 'status_update' })).result.isError).toBe(false);
    expect((await call('con', 'send_message', { to: 'nobody', body: 'hi' })).result.code).toBe('MAILBOX.UNKNOWN_RECIPIENT');
    await call('may', 'broadcast_message', { body: 'standup' });
    expect(team.messages.map((m) => `${m.from}->${m.to}:${m.body}`)).toEqual(['con->al:schema is ready', 'may->con:standup', 'may->al:standup']);
  });

  it('locks and unlocks workspace-relative paths, and refuses paths outside the workspace', async () => {
    expect(JSON.parse((await call('con', 'lock_file', { path: `${root}/src/a.ts` })).result.content)).toEqual({ path: 'src/a.ts', holder: 'con' });
    expect((await call('al', 'lock_file', { path: 'src/a.ts' })).result.code).toBe('LOCK.HELD');
    expect((await call('con', 'unlock_file', { path: 'src/a.ts' })).result.isError).toBe(false);
    expect((await call('con', 'lock_file', { path: '../elsewhere.ts' })).result.code).toBe(ErrorCodes.toolPathOutsideWorkspace);
    expect(team.locks.size).toBe(0);
  });

  it('requests approval', async () => {
    const r = await call('con', 'request_approval', { subject: 'Deploy to staging' });
    expect(JSON.parse(r.result.content)).toEqual({ approvalId: 'appr-1', status: 'pending' });
  });

  it('checks an approval: pending until answered, then the decision; an unknown id is refused with its code', async () => {
    await call('con', 'request_approval', { subject: 'Deploy to staging' });
    expect(JSON.parse((await call('con', 'check_approval', { approval_id: 'appr-1' })).result.content)).toMatchObject({ status: 'pending' });
    team.approvals[0].decision = 'approve';
    expect(JSON.parse((await call('con', 'check_approval', { approval_id: 'appr-1' })).result.content)).toMatchObject({ status: 'approved', decision: 'approve' });
    expect((await call('con', 'check_approval', { approval_id: 'appr-9' })).result.code).toBe(ErrorCodes.approvalNotFound);
  });

  it('validates team tool input', async () => {
    expect((await call('con', 'create_tasks', { tasks: [] })).result.code).toBe(ErrorCodes.toolInputInvalid);
  });

  it('refuses a create_tasks call that uses one key twice, naming the key', async () => {
    const r = await call('gavin', 'create_tasks', { tasks: [{ key: 'api', title: 'A' }, { key: 'api', title: 'B' }] });
    expect(r.result.code).toBe(ErrorCodes.toolInputInvalid);
    expect(r.result.content).toContain('tasks.1.key');
  });
});
