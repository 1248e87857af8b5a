import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { agentRuntimeSchema } from '../orchestrator/runtime.contracts';

/**
 * Personas and pools (seed 000 §5, §8): named identities with a role type and a mode, grouped into
 * skill-domain pools; a persona is active in at most one agent at a time (a lease), at most
 * `maxConcurrentAgents` leases exist at once, and a request that cannot be served queues (FIFO).
 */

/** Persona ids and pool names: lowercase tokens (`con`, `backend`), 1–32 chars. */
export const personaIdSchema = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be 1-32 lowercase letters, digits or dashes, starting with a letter');
export const poolNameSchema = personaIdSchema;
export const personaRoleTypes = ['workshop', 'pm', 'execution', 'qa', 'ops'] as const;
export const agentModes = ['workshop', 'execution'] as const;
export const personaRoleTypeSchema = z.enum(personaRoleTypes);
export const agentModeSchema = z.enum(agentModes);

/** The single stream holding the persona registry, the leases and the wait queue (one consistency boundary). */
export const PERSONA_REGISTRY_STREAM = 'persona-registry';
export const DEFAULT_MAX_CONCURRENT_AGENTS = 3;

export const personaSchema = z.object({
  personaId: personaIdSchema,
  name: z.string().min(1).max(64),
  description: z.string().max(2_000),
  roleType: personaRoleTypeSchema,
  mode: agentModeSchema,
  /** Skill domains the persona has visibility into (seed §5.2 `pools`); selection uses pool membership. */
  pools: z.array(poolNameSchema).max(32),
  /** The runtime this persona's sessions use unless the run or its team member names one. */
  runtime: agentRuntimeSchema.optional(),
});
export type Persona = z.output<typeof personaSchema>;

export const poolSchema = z.object({ pool: poolNameSchema, personas: z.array(personaIdSchema).max(64) });
export type PersonaPool = z.output<typeof poolSchema>;

const refId = z.string().min(1).max(200);
const maxConcurrentSchema = z.number().int().min(1).max(1_000);
const queueReason = z.enum(['pool-exhausted', 'max-concurrency']);

export const personaConfigLoaded = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'config-loaded',
  schema: z.object({
    source: z.string().max(1_000),
    hash: z.string().max(128),
    maxConcurrentAgents: maxConcurrentSchema,
    personas: z.array(personaSchema),
    pools: z.array(poolSchema),
    loadedAt: z.iso.datetime(),
  }),
});

export const personaRegistered = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'registered',
  schema: z.object({ persona: personaSchema, registeredAt: z.iso.datetime() }),
});

export const personaUpdated = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'updated',
  schema: z.object({ persona: personaSchema, updatedAt: z.iso.datetime() }),
});

export const personaPoolMembershipSet = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'pool-membership-set',
  schema: z.object({ pool: poolNameSchema, personas: z.array(personaIdSchema), setAt: z.iso.datetime() }),
});

export const personaMaxConcurrencySet = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'max-concurrency-set',
  schema: z.object({ maxConcurrentAgents: maxConcurrentSchema, setAt: z.iso.datetime() }),
});

export const personaGranted = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'granted',
  schema: z.object({
    requestId: z.string(),
    leaseId: z.string(),
    personaId: personaIdSchema,
    pool: poolNameSchema,
    taskId: refId.optional(),
    agentId: refId.optional(),
    /** True when the persona was chosen for its affinity with the task's earlier work. */
    affinity: z.boolean(),
    /** True when the request had waited in the queue. */
    fromQueue: z.boolean(),
    grantedAt: z.iso.datetime(),
  }),
});

export const personaRequestQueued = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'request-queued',
  schema: z.object({
    requestId: z.string(),
    pool: poolNameSchema,
    taskId: refId.optional(),
    agentId: refId.optional(),
    affinityPersonaId: personaIdSchema.optional(),
    reason: queueReason,
    /** 1-based place in the queue. */
    position: z.number().int().positive(),
    queuedAt: z.iso.datetime(),
  }),
});

/** The operator notification of seed §8.2: a request could not be served and waits. */
export const personaPoolExhausted = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'pool-exhausted',
  schema: z.object({
    requestId: z.string(),
    pool: poolNameSchema,
    reason: queueReason,
    activeAgents: z.number().int().nonnegative(),
    maxConcurrentAgents: maxConcurrentSchema,
    queueLength: z.number().int().positive(),
    notifiedAt: z.iso.datetime(),
  }),
});

export const personaReleased = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'released',
  schema: z.object({ leaseId: z.string(), requestId: z.string(), personaId: personaIdSchema, releasedAt: z.iso.datetime() }),
});

export const personaRequestCancelled = defineEvent({
  service: 'team-manager',
  category: 'persona',
  name: 'request-cancelled',
  schema: z.object({ requestId: z.string(), pool: poolNameSchema, cancelledAt: z.iso.datetime() }),
});

export const personaEvents = [
  personaConfigLoaded,
  personaRegistered,
  personaUpdated,
  personaPoolMembershipSet,
  personaMaxConcurrencySet,
  personaGranted,
  personaRequestQueued,
  personaPoolExhausted,
  personaReleased,
  personaRequestCancelled,
];

const grantSchema = z.object({ requestId: z.string(), leaseId: z.string(), personaId: personaIdSchema });
const versionResponse = { streamVersion: z.string() };

export const registerPersona = defineCommand({
  service: 'team-manager',
  name: 'register-persona',
  request: z.object({
    personaId: personaIdSchema,
    name: z.string().min(1).max(64),
    description: z.string().max(2_000).default(''),
    roleType: personaRoleTypeSchema.default('execution'),
    mode: agentModeSchema.optional(),
    pools: z.array(poolNameSchema).max(32).default([]),
    runtime: agentRuntimeSchema.optional(),
  }),
  response: z.object({ persona: personaSchema, ...versionResponse }),
});

export const updatePersona = defineCommand({
  service: 'team-manager',
  name: 'update-persona',
  request: z.object({
    personaId: personaIdSchema,
    name: z.string().min(1).max(64).optional(),
    description: z.string().max(2_000).optional(),
    roleType: personaRoleTypeSchema.optional(),
    mode: agentModeSchema.optional(),
    pools: z.array(poolNameSchema).max(32).optional(),
    runtime: agentRuntimeSchema.optional(),
  }),
  response: z.object({ persona: personaSchema, ...versionResponse }),
});

export const setPoolMembership = defineCommand({
  service: 'team-manager',
  name: 'set-pool-membership',
  request: z.object({ pool: poolNameSchema, personas: z.array(personaIdSchema).max(64) }),
  response: z.object({ pool: z.string(), personas: z.array(z.string()), granted: z.array(grantSchema), ...versionResponse }),
});

export const setMaxConcurrentAgents = defineCommand({
  service: 'team-manager',
  name: 'set-max-concurrent-agents',
  request: z.object({ maxConcurrentAgents: maxConcurrentSchema }),
  response: z.object({ maxConcurrentAgents: z.number(), granted: z.array(grantSchema), ...versionResponse }),
});

export const acquirePersona = defineCommand({
  service: 'team-manager',
  name: 'acquire-persona',
  request: z.object({
    pool: poolNameSchema,
    taskId: refId.optional(),
    agentId: refId.optional(),
    /** The persona that worked on this task before: preferred when available in the pool. */
    affinityPersonaId: personaIdSchema.optional(),
  }),
  response: z.object({
    requestId: z.string(),
    status: z.enum(['granted', 'queued', 'released', 'cancelled']),
    leaseId: z.string().optional(),
    personaId: z.string().optional(),
    position: z.number().int().optional(),
    ...versionResponse,
  }),
});

export const releasePersona = defineCommand({
  service: 'team-manager',
  name: 'release-persona',
  request: z.object({ leaseId: z.string().min(1).max(100) }),
  response: z.object({ leaseId: z.string(), personaId: z.string(), granted: z.array(grantSchema), ...versionResponse }),
});

/** Withdraws a queued request (the task no longer needs a persona); a request already granted is left as it is. */
export const cancelPersonaRequest = defineCommand({
  service: 'team-manager',
  name: 'cancel-persona-request',
  request: z.object({ requestId: z.string().min(1).max(100) }),
  response: z.object({ requestId: z.string(), status: z.enum(['cancelled', 'granted', 'released']), ...versionResponse }),
});

export const listPersonas = defineQuery({
  service: 'team-manager',
  name: 'list-personas',
  request: z.object({ pool: poolNameSchema.optional() }),
  response: z.object({
    maxConcurrentAgents: z.number(),
    activeAgents: z.number(),
    personas: z.array(
      personaSchema.extend({
        status: z.enum(['available', 'active']),
        leaseId: z.string().optional(),
        taskId: z.string().optional(),
      }),
    ),
    pools: z.array(poolSchema),
    queue: z.array(z.object({ requestId: z.string(), pool: z.string(), taskId: z.string().optional(), position: z.number() })),
  }),
});

export const getPersonaRequest = defineQuery({
  service: 'team-manager',
  name: 'get-persona-request',
  request: z.object({ requestId: z.string().min(1).max(100) }),
  response: z.object({
    requestId: z.string(),
    pool: z.string(),
    status: z.enum(['queued', 'granted', 'released', 'cancelled']),
    personaId: z.string().optional(),
    leaseId: z.string().optional(),
  }),
});
