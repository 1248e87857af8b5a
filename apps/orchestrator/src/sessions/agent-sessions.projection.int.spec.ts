import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventRegistry, runEvents, sessionEvents, sessionStreamId } from '@headspace/contracts';
import { EventStore, migrate, type NewEvent } from '@headspace/event-store';
import { createTestDatabase, inStream, ProjectionSpec, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { AgentSessionsProjection } from './agent-sessions.projection';

const schema = 'orchestrator';
let db: TestDatabase;
let spec: ProjectionSpec<AgentSessionsProjection>;

beforeAll(async () => {
  db = await createTestDatabase('agentsessions');
  await migrate(db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry([...sessionEvents, ...runEvents]) });
  spec = ProjectionSpec.for(store, () => new AgentSessionsProjection(store));
});
afterAll(async () => {
  await db?.drop();
});

const usage = (input: number, output: number, cacheRead = 0) => ({ inputTokens: input, outputTokens: output, cacheWrite5mTokens: 10, cacheWrite1hTokens: 5, cacheReadTokens: cacheRead });

const started = (sessionId: string, at: string): NewEvent => ({
  type: 'session.started',
  data: { sessionId, team: 'red', persona: 'con', kind: 'task', taskId: 'T-1', model: 'sonnet', effort: 'standard', runtime: 'built-in', simulated: true, prompt: 'build it', startedAt: at },
});
const modelCalled = (sessionId: string, turn: number, tokens: ReturnType<typeof usage>): NewEvent => ({
  type: 'session.model-called',
  data: { sessionId, turn, model: 'sonnet', stopReason: 'tool_use', content: [], usage: tokens, durationMs: 5, at: '2025-01-01T10:00:01.000Z' },
});
const toolCalled = (sessionId: string, turn: number, tool: string, isError: boolean): NewEvent => ({
  type: 'session.tool-called',
  data: { sessionId, turn, toolUseId: `tu-${turn}-${tool}`, tool, isError, content: 'ok', durationMs: 3, at: '2025-01-01T10:00:02.000Z' },
});
const ended = (sessionId: string, at: string): NewEvent => ({
  type: 'session.ended',
  data: { sessionId, exitReason: 'completed', summary: 'done', turns: 2, usage: usage(0, 0), toolsUsed: ['edit'], filesModified: [], at },
});

const sessionRow = (sessionId: string) => ({ sql: 'SELECT * FROM orchestrator.agent_sessions WHERE session_id = $1', params: [sessionId] });

describe('agent-sessions projection', () => {
  it('a started session is running, with its persona, task and model and no usage yet', async () => {
    const id = randomUUID();
    await spec.when(inStream(sessionStreamId(id), started(id, '2025-01-01T10:00:00.000Z'))).then(sessionRow(id), [
      { session_id: id, team: 'red', persona: 'con', kind: 'task', task_id: 'T-1', model: 'sonnet', simulated: true, status: 'running', turns: 0, tool_calls: 0, ended_at: null },
    ]);
  });

  it('model calls add up their tokens and tool calls count, the last one named as the activity', async () => {
    const id = randomUUID();
    await spec
      .given(inStream(sessionStreamId(id), started(id, '2025-01-01T10:00:00.000Z'), modelCalled(id, 1, usage(100, 20, 50))))
      .when(inStream(sessionStreamId(id), toolCalled(id, 1, 'edit', false), modelCalled(id, 2, usage(30, 7)), toolCalled(id, 2, 'bash', true)))
      .then(sessionRow(id), [
        { turns: 2, input_tokens: '130', output_tokens: '27', cache_read_tokens: '50', cache_write_tokens: '30', tool_calls: 2, last_activity: 'bash (failed)' },
      ]);
  });

  it('an ended session records its exit reason and end time', async () => {
    const id = randomUUID();
    await spec
      .given(inStream(sessionStreamId(id), started(id, '2025-01-01T10:00:00.000Z')))
      .when(inStream(sessionStreamId(id), ended(id, '2025-01-01T10:05:00.000Z')))
      .then(sessionRow(id), [{ status: 'ended', exit_reason: 'completed', ended_at: new Date('2025-01-01T10:05:00.000Z') }]);
  });

  it('rebuilt from position 0 equals the live rows', async () => {
    await spec.rebuiltEqualsLive();
  });
});
