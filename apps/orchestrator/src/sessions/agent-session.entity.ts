import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A row of the agent-sessions read model (agent-sessions.projection.ts; migrations/0002_agent_sessions.sql). */
export const AgentSessionRow = defineEntity({
  name: 'AgentSessionRow',
  tableName: 'agent_sessions',
  properties: {
    sessionId: p.text().primary(),
    team: p.text(),
    persona: p.text(),
    kind: p.text(),
    runId: p.text().nullable(),
    taskId: p.text().nullable(),
    model: p.text(),
    simulated: p.boolean(),
    status: p.text().$type<'running' | 'ended'>(),
    exitReason: p.text().nullable(),
    turns: p.integer(),
    toolCalls: p.integer(),
    inputTokens: p.bigint('string'),
    outputTokens: p.bigint('string'),
    cacheReadTokens: p.bigint('string'),
    cacheWriteTokens: p.bigint('string'),
    lastActivity: p.text().nullable(),
    continuesSession: p.text().nullable(),
    startedAt: p.datetime(),
    updatedAt: p.datetime(),
    endedAt: p.datetime().nullable(),
  },
});
export type AgentSessionRow = InferEntity<typeof AgentSessionRow>;
