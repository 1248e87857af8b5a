import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { Persona } from '@headspace/contracts';

// Rows of the persona board (persona-board.projection.ts; migrations/0004_personas.sql).

export const PersonaRosterRow = defineEntity({
  name: 'PersonaRosterRow',
  tableName: 'persona_roster',
  properties: {
    personaId: p.text().primary(),
    position: p.integer(),
    name: p.text(),
    description: p.text(),
    roleType: p.text().$type<Persona['roleType']>(),
    mode: p.text().$type<Persona['mode']>(),
    pools: p.json<string[]>(),
    runtime: p.text().$type<NonNullable<Persona['runtime']>>().nullable(),
  },
});
export type PersonaRosterRow = InferEntity<typeof PersonaRosterRow>;

export const PersonaPoolRow = defineEntity({
  name: 'PersonaPoolRow',
  tableName: 'persona_pools',
  properties: {
    pool: p.text().primary(),
    position: p.integer(),
    personas: p.json<string[]>(),
  },
});
export type PersonaPoolRow = InferEntity<typeof PersonaPoolRow>;

export const PersonaRequestRow = defineEntity({
  name: 'PersonaRequestRow',
  tableName: 'persona_requests',
  properties: {
    requestId: p.text().primary(),
    pool: p.text(),
    taskId: p.text().nullable(),
    agentId: p.text().nullable(),
    status: p.text().$type<'queued' | 'granted' | 'released' | 'cancelled'>(),
    personaId: p.text().nullable(),
    leaseId: p.text().nullable(),
    seq: p.bigint('string'),
    updatedAt: p.datetime(),
  },
});
export type PersonaRequestRow = InferEntity<typeof PersonaRequestRow>;

export const PersonaSettingsRow = defineEntity({
  name: 'PersonaSettingsRow',
  tableName: 'persona_settings',
  properties: {
    id: p.integer().primary(),
    maxConcurrentAgents: p.integer(),
  },
});
export type PersonaSettingsRow = InferEntity<typeof PersonaSettingsRow>;
