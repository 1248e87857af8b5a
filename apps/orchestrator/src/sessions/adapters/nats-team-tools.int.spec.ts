import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeamTools, ToolRegistry, workspaceTools, type TeamCaller } from '@headspace/agent-runtime';
import { answerApproval, createTeam, getApproval, HeadspaceError, listApprovals, listFileLocks, listMessages, listTasks, openInbox } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The harness boots the real team-manager the adapter talks to; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startTeamManager, type TeamManagerHarness } from '../../../../team-manager/src/testing/team-manager-harness';
import { NatsTeamTools } from './nats-team-tools.adapter';

let tm: TeamManagerHarness;
let workspaceRoot: string;

beforeAll(async () => {
  tm = await startTeamManager('teamtools');
  workspaceRoot = await mkdtemp(join(tmpdir(), 'team-tools-'));
});
afterAll(async () => {
  await tm?.close();
  if (workspaceRoot) await rm(workspaceRoot, { recursive: true, force: true });
});

/** A fresh team: `gavin` leads, `con` and `al` are members, each with an open inbox. */
async function newTeam(): Promise<{ team: string; tools: NatsTeamTools }> {
  const team = `tt-${randomBytes(4).toString('hex')}`;
  await tm.send(createTeam, { name: team });
  await tm.send(openInbox, { team, memberId: 'gavin', role: 'lead' });
  for (const memberId of ['con', 'al']) await tm.send(openInbox, { team, memberId, role: 'member' });
  return { team, tools: new NatsTeamTools(tm.nc, team) };
}

const as = (agentId: string, toolUseId = `toolu_${randomUUID()}`, sessionId = `session-${agentId}`): TeamCaller => ({ agentId, toolUseId, sessionId });

async function refusal(call: Promise<unknown>): Promise<HeadspaceError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof HeadspaceError)) throw new Error(`expected a HeadspaceError, got ${String(error)}`);
  return error;
}

const board = (team: string, until: (ids: string[]) => boolean, filter: { status?: 'pending' | 'claimed' | 'completed'; blocked?: boolean } = {}) =>
  waitFor(
    async () => {
      const { tasks } = await tm.send(listTasks, { team, ...filter });
      return until(tasks.map((t) => t.taskId)) ? tasks : undefined;
    },
    { message: `board of ${team} ${JSON.stringify(filter)}` },
  );

const inbox = (team: string, memberId: string, count: number) =>
  waitFor(
    async () => {
      const { messages } = await tm.send(listMessages, { team, memberId });
      return messages.length >= count ? messages : undefined;
    },
    { message: `${count} messages for ${memberId}` },
  );

describe('NatsTeamTools: tasks', () => {
  it('creates tasks with dependencies and lists them as the agent sees them, the dependent one blocked', async () => {
    const { team, tools } = await newTeam();
    const { taskIds: [schema] } = await tools.createTasks([{ title: 'Design the schema', description: 'Tables for users', acceptanceCriteria: ['has a users table'] }], as('gavin'));
    const { taskIds: [api] } = await tools.createTasks([{ title: 'Build the API', dependencies: [schema], files: ['src/api/**'] }], as('gavin'));
    await board(team, (ids) => ids.length === 2);

    const all = await tools.listTasks({}, as('con'));
    expect(all).toEqual([
      expect.objectContaining({ id: schema, title: 'Design the schema', status: 'pending', dependencies: [], description: 'Tables for users\nAcceptance criteria:\n- has a users table' }),
      expect.objectContaining({ id: api, title: 'Build the API', status: 'blocked', dependencies: [schema], blockedBy: [schema], files: ['src/api/**'] }),
    ]);
    expect((await tools.listTasks({ status: 'pending' }, as('con'))).map((t) => t.id)).toEqual([schema]);
    expect((await tools.listTasks({ status: 'blocked' }, as('con'))).map((t) => t.id)).toEqual([api]);
  });

  it('a task may depend on another of the same call by its key; a retried call creates the same tasks once', async () => {
    const { team, tools } = await newTeam();
    const { taskIds: [existing] } = await tools.createTasks([{ title: 'Set up the repo' }], as('gavin'));
    const caller = as('gavin');
    const batch = [
      { key: 'api', title: 'Build the API', dependencies: [existing], pool: 'backend' },
      { key: 'ui', title: 'Build the UI', dependencies: ['api'] },
      { title: 'Write the docs', dependencies: ['api', 'ui'] },
    ];
    const { taskIds } = await tools.createTasks(batch, caller);
    expect(await tools.createTasks(batch, caller)).toEqual({ taskIds });
    const [api, ui, docs] = taskIds;
    const tasks = await board(team, (ids) => ids.length === 4);
    expect(tasks.map((t) => t.taskId).sort()).toEqual([existing, ...taskIds].sort());
    const listed = await tools.listTasks({}, as('con'));
    expect(listed.find((t) => t.id === api)).toMatchObject({ title: 'Build the API', dependencies: [existing] });
    expect(listed.find((t) => t.id === ui)).toMatchObject({ title: 'Build the UI', dependencies: [api], status: 'blocked' });
    expect(listed.find((t) => t.id === docs)).toMatchObject({ title: 'Write the docs', dependencies: [api, ui], status: 'blocked' });
    expect(tasks.find((t) => t.taskId === api)?.metadata).toEqual({ createdBy: 'gavin', pool: 'backend' });
  });

  it('a claim makes the caller the assignee, and a second claimer gets TASK.ALREADY_CLAIMED', async () => {
    const { tools } = await newTeam();
    const { taskIds: [id] } = await tools.createTasks([{ title: 'Write the parser' }], as('gavin'));

    const claimed = await tools.claimTask(id, as('con'));
    expect(claimed).toMatchObject({ id, status: 'claimed', assignee: 'con', attempt: 1 });
    expect(await refusal(tools.claimTask(id, as('al')))).toMatchObject({ code: 'TASK.ALREADY_CLAIMED' });
  });

  it('the refused claim reaches the model as an error result carrying the code', async () => {
    const { tools } = await newTeam();
    const { taskIds: [id] } = await tools.createTasks([{ title: 'Write the lexer' }], as('gavin'));
    await tools.claimTask(id, as('con'));
    const registry = new ToolRegistry({ tools: createTeamTools(tools) });

    const { result } = await registry.dispatch({ id: `toolu_${randomUUID()}`, name: 'claim_task', input: { task_id: id } }, { workspaceRoot, agentId: 'al', sessionId: 's-al' });
    expect(result).toMatchObject({ isError: true, code: 'TASK.ALREADY_CLAIMED' });
    expect(result.content).toContain('TASK.ALREADY_CLAIMED');
  });

  it('completing a task unblocks its dependent, which another member can then claim', async () => {
    const { team, tools } = await newTeam();
    const { taskIds: [first] } = await tools.createTasks([{ title: 'Migrate the database' }], as('gavin'));
    const { taskIds: [second] } = await tools.createTasks([{ title: 'Backfill the data', dependencies: [first] }], as('gavin'));
    expect(await refusal(tools.claimTask(second, as('al')))).toMatchObject({ code: 'TASK.BLOCKED' });
    await tools.claimTask(first, as('con'));

    const done = await tools.completeTask(first, { summary: 'Migrated', filesModified: ['db/001.sql'] }, as('con'));
    expect(done).toMatchObject({ id: first, status: 'complete', assignee: 'con' });
    await board(team, (ids) => ids.includes(second), { status: 'pending', blocked: false });
    expect((await tools.listTasks({ status: 'pending' }, as('al'))).map((t) => t.id)).toEqual([second]);
    expect(await tools.claimTask(second, as('al'))).toMatchObject({ id: second, status: 'claimed', assignee: 'al' });
  });

  it('a task given back with release_task is pending again with the reason among its failed approaches, and a teammate can claim it', async () => {
    const { team, tools } = await newTeam();
    const { taskIds: [id] } = await tools.createTasks([{ title: 'Wire the payment provider' }], as('gavin'));
    await tools.claimTask(id, as('con'));
    // The tool's answer takes the title from the board (a projection): a task an agent gives back has been on it for a while.
    await board(team, (ids) => ids.includes(id), { status: 'claimed' });
    expect(await refusal(tools.releaseTask(id, 'not mine', as('al')))).toMatchObject({ code: 'TASK.NOT_OWNER' });

    const released = await tools.releaseTask(id, 'The sandbox API key is missing', as('con'));
    expect(released).toMatchObject({ id, title: 'Wire the payment provider', status: 'pending', attempt: 1, escalated: false });
    expect(released).not.toHaveProperty('assignee');
    // Pending before the claim too: wait for the board to show the release itself.
    const given = await waitFor(async () => {
      const { tasks } = await tm.send(listTasks, { team, status: 'pending' });
      return tasks.find((t) => t.taskId === id && t.failedApproaches.length > 0);
    }, { message: 'the release on the board' });
    expect(given.failedApproaches).toEqual([expect.objectContaining({ attempt: 1, owner: 'con', reason: 'The sandbox API key is missing' })]);
    expect(await tools.claimTask(id, as('al'))).toMatchObject({ id, status: 'claimed', assignee: 'al', attempt: 2 });
  });

  it('only the assignee can complete a task', async () => {
    const { tools } = await newTeam();
    const { taskIds: [id] } = await tools.createTasks([{ title: 'Review the docs' }], as('gavin'));
    await tools.claimTask(id, as('con'));
    expect(await refusal(tools.completeTask(id, { summary: 'done' }, as('al')))).toMatchObject({ code: 'TASK.NOT_OWNER' });
  });
});

describe('NatsTeamTools: messages', () => {
  it('a message reaches the named teammate’s mailbox with the sender and topic', async () => {
    const { team, tools } = await newTeam();
    const sent = await tools.sendMessage({ to: 'al', type: 'question', body: 'Is the schema final?' }, as('con'));
    expect(sent.recipients).toEqual(['al']);

    const [message] = await inbox(team, 'al', 1);
    expect(message).toMatchObject({ messageId: sent.messageId, from: 'con', type: 'message', topic: 'question', body: 'Is the schema final?' });
    expect(message.summary?.split(' ').length).toBeGreaterThanOrEqual(5);
  });

  it('a broadcast reaches every other teammate’s mailbox', async () => {
    const { team, tools } = await newTeam();
    const { messageIds: [id], recipients } = await tools.broadcastMessage({ body: 'Freeze merges until the release is cut, please' }, as('gavin'));
    expect([...recipients].sort()).toEqual(['al', 'con']);

    for (const member of ['con', 'al']) {
      const [message] = await inbox(team, member, 1);
      expect(message).toMatchObject({ messageId: id, from: 'gavin', type: 'broadcast' });
    }
  });

  it('a message to someone without an inbox is refused with its code', async () => {
    const { tools } = await newTeam();
    expect(await refusal(tools.sendMessage({ to: 'nobody', body: 'hello there' }, as('con')))).toMatchObject({ code: 'MAILBOX.UNKNOWN_RECIPIENT' });
  });
});

describe('NatsTeamTools: file locks', () => {
  it('a second holder is refused with LOCK.HELD until the first unlocks', async () => {
    const { team, tools } = await newTeam();
    expect(await tools.lockFile('src/auth.ts', as('con'))).toMatchObject({ path: 'src/auth.ts', holder: 'con' });
    expect(await refusal(tools.lockFile('src/auth.ts', as('al')))).toMatchObject({ code: 'LOCK.HELD', details: { holder: 'con' } });
    expect(await refusal(tools.unlockFile('src/auth.ts', as('al')))).toMatchObject({ code: 'LOCK.NOT_HOLDER' });

    expect(await tools.unlockFile('src/auth.ts', as('con'))).toEqual({ path: 'src/auth.ts', released: true });
    expect(await tools.lockFile('src/auth.ts', as('al'))).toMatchObject({ holder: 'al' });
    const locks = await waitFor(
      async () => {
        const listed = (await tm.send(listFileLocks, { team })).locks;
        return listed.some((l) => l.holder === 'al') ? listed : undefined;
      },
      { message: 'lock passed to al' },
    );
    expect(locks.map((l) => ({ path: l.path, holder: l.holder }))).toEqual([{ path: 'src/auth.ts', holder: 'al' }]);
  });

  it('the lock checker sees a lock the moment lock_file returns, and only for its holder', async () => {
    const { tools } = await newTeam();
    await tools.lockFile('./src/../src/db.ts', as('con'));
    expect(await tools.holdsLock('src/db.ts', 'con')).toBe(true);
    expect(await tools.holdsLock('src/db.ts', 'al')).toBe(false);

    await tools.unlockFile('src/db.ts', as('con'));
    await waitFor(async () => !(await tools.holdsLock('src/db.ts', 'con')), { message: 'lock released in the table' });
  });

  it('a write outside the persona’s owns goes through once it holds the lock, and not for a teammate without it', async () => {
    const { tools } = await newTeam();
    const registry = new ToolRegistry({ tools: [...workspaceTools, ...createTeamTools(tools)], policy: { owns: ['docs/**'], ownsPolicy: 'require-lock' }, lockChecker: tools });
    const call = (agentId: string, name: string, input: unknown) =>
      registry.dispatch({ id: `toolu_${randomUUID()}`, name, input }, { workspaceRoot, agentId, sessionId: `s-${agentId}` });

    expect((await call('con', 'Write', { file_path: 'src/owned-by-lock.ts', content: 'x' })).result).toMatchObject({ isError: true });
    expect((await call('con', 'lock_file', { path: 'src/owned-by-lock.ts' })).result).toMatchObject({ isError: false });
    expect((await call('con', 'Write', { file_path: 'src/owned-by-lock.ts', content: 'export {};\n' })).result).toMatchObject({ isError: false });
    expect(await readFile(join(workspaceRoot, 'src/owned-by-lock.ts'), 'utf8')).toBe('export {};\n');
    expect((await call('al', 'Write', { file_path: 'src/owned-by-lock.ts', content: 'y' })).result).toMatchObject({ isError: true });
  });
});

describe('NatsTeamTools: approvals', () => {
  it('request_approval queues a pending permission request from the caller', async () => {
    const { team, tools } = await newTeam();
    const { approvalId, status } = await tools.requestApproval({ subject: 'Drop the legacy table', details: 'It has no readers since v2' }, as('con', undefined, 'session-42'));
    expect(status).toBe('pending');

    const approval = await waitFor(() => tm.send(getApproval, { approvalId }).catch(() => undefined), { message: 'approval projected' });
    expect(approval).toMatchObject({
      team,
      kind: 'permission-request',
      requester: 'con',
      summary: 'Drop the legacy table',
      status: 'pending',
      defaultAnswer: 'deny',
      payload: { details: 'It has no readers since v2', sessionId: 'session-42' },
    });
  });

  it('check_approval shows pending, then the human’s decision and reason; another team cannot see it', async () => {
    const { tools } = await newTeam();
    const { approvalId } = await tools.requestApproval({ subject: 'Rotate the API keys' }, as('con'));
    const pending = await waitFor(() => tools.getApproval(approvalId, as('con')).catch(() => undefined), { message: 'approval projected' });
    expect(pending).toMatchObject({ approvalId, subject: 'Rotate the API keys', status: 'pending' });
    await tm.send(answerApproval, { approvalId, decision: 'approve', reason: 'Do it after 18:00', answeredBy: 'operator' });
    const decided = await waitFor(async () => {
      const view = await tools.getApproval(approvalId, as('con'));
      return view.status === 'pending' ? undefined : view;
    }, { message: 'decision projected' });
    expect(decided).toMatchObject({ status: 'approved', decision: 'approve', reason: 'Do it after 18:00', decidedBy: 'operator' });
    const other = await newTeam();
    const refused = await other.tools.getApproval(approvalId, as('mark')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HeadspaceError);
    expect((refused as HeadspaceError).code).toBe('APPROVAL.NOT_FOUND');
  });
});

describe('NatsTeamTools: a retried tool call has one effect', () => {
  it('creating tasks twice with one tool_use id creates them once, with the same ids', async () => {
    const { team, tools } = await newTeam();
    const caller = as('gavin');
    const first = await tools.createTasks([{ title: 'One' }, { title: 'Two' }], caller);
    const again = await tools.createTasks([{ title: 'One' }, { title: 'Two' }], caller);
    expect(again).toEqual(first);
    const tasks = await board(team, (ids) => ids.length >= 2);
    expect(tasks.map((t) => t.taskId).sort()).toEqual([...first.taskIds].sort());
  });

  it('a repeated claim answers as the first did instead of TASK.ALREADY_CLAIMED, and completion likewise', async () => {
    const { tools } = await newTeam();
    const { taskIds: [id] } = await tools.createTasks([{ title: 'Index the docs' }], as('gavin'));
    const claim = as('con');
    const first = await tools.claimTask(id, claim);
    const again = await tools.claimTask(id, claim);
    expect(again).toMatchObject({ id, status: 'claimed', assignee: 'con', attempt: first.attempt, leaseExpiresAt: first.leaseExpiresAt });

    const complete = as('con');
    await tools.completeTask(id, { summary: 'Indexed' }, complete);
    expect(await tools.completeTask(id, { summary: 'Indexed' }, complete)).toMatchObject({ id, status: 'complete' });
  });

  it('a repeated send delivers one message, and a repeated approval request queues one approval', async () => {
    const { team, tools } = await newTeam();
    const send = as('con');
    const sent = await tools.sendMessage({ to: 'al', body: 'The build is green again now' }, send);
    expect(await tools.sendMessage({ to: 'al', body: 'The build is green again now' }, send)).toEqual(sent);
    const ask = as('con');
    const asked = await tools.requestApproval({ subject: 'Deploy to staging' }, ask);
    expect((await tools.requestApproval({ subject: 'Deploy to staging' }, ask)).approvalId).toBe(asked.approvalId);

    await inbox(team, 'al', 1);
    const approvals = await waitFor(
      async () => {
        const { approvals: listed } = await tm.send(listApprovals, { team });
        return listed.length > 0 ? listed : undefined;
      },
      { message: 'approval listed' },
    );
    expect((await tm.send(listMessages, { team, memberId: 'al' })).messages.map((m) => m.messageId)).toEqual([sent.messageId]);
    expect(approvals.map((a) => a.approvalId)).toEqual([asked.approvalId]);
  });

  it('the same tool_use id in two sessions is two calls', async () => {
    const { team, tools } = await newTeam();
    const toolUseId = `toolu_sim_${randomBytes(12).toString('hex')}`;
    const a = await tools.createTasks([{ title: 'From session A' }], as('gavin', toolUseId, 'session-a'));
    const b = await tools.createTasks([{ title: 'From session B' }], as('gavin', toolUseId, 'session-b'));
    expect(a.taskIds[0]).not.toBe(b.taskIds[0]);
    await board(team, (ids) => ids.length === 2);
  });
});
