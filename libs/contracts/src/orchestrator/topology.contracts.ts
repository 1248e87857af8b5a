import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { effortLevelSchema, taskSignalsSchema } from '../cost-governor/routing.contracts';
import { teamNameSchema } from '../team-manager/team.contracts';
import { runSourceSchema } from './run-source';

/**
 * A request whose topology the orchestrator chooses (issue 24 scope 1): from the prompt's
 * TaskSignals, a single agent (an ask) or an agent team (a run). Its stream `request-<requestId>`
 * records the choice with its reasons and the ask or run it started (ADR 0050).
 */
export const requestStreamId = (requestId: string) => `request-${requestId}`;
export const requestIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lowercase letters, digits or dashes');
/** What a request can be run as; `auto` lets the orchestrator choose. */
export const requestTopologies = ['ask', 'run'] as const;

const id = z.string().min(1).max(200);

export const topologyChosen = defineEvent({
  service: 'orchestrator',
  category: 'request',
  name: 'topology-chosen',
  schema: z.object({
    requestId: id,
    team: teamNameSchema,
    topology: z.enum(requestTopologies),
    /** False when the operator named the topology instead of `auto`. */
    auto: z.boolean(),
    reasons: z.array(z.string().max(500)).max(30),
    signals: taskSignalsSchema,
    /** The ask or run the request started (its id is derived from the request's). */
    startedId: id,
    at: z.iso.datetime(),
  }),
});
export const requestEvents = [topologyChosen];

export const startRequest = defineCommand({
  service: 'orchestrator',
  name: 'start-request',
  request: z.object({
    requestId: requestIdSchema.optional(),
    team: teamNameSchema,
    prompt: z.string().trim().min(1).max(20_000),
    workspace: runSourceSchema,
    topology: z.enum(['auto', ...requestTopologies]).default('auto'),
    agent: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a lower-case agent name').optional(),
    model: z.string().min(1).max(100).optional(),
    effort: effortLevelSchema.optional(),
  }),
  response: z.object({ requestId: z.string(), topology: z.enum(requestTopologies), auto: z.boolean(), reasons: z.array(z.string()), askId: z.string().optional(), runId: z.string().optional() }),
});

export const requestViewSchema = z.object({
  requestId: z.string(),
  team: z.string(),
  topology: z.enum(requestTopologies),
  auto: z.boolean(),
  reasons: z.array(z.string()),
  signals: taskSignalsSchema,
  startedId: z.string(),
  at: z.string(),
});

export const getRequest = defineQuery({ service: 'orchestrator', name: 'get-request', request: z.object({ requestId: id }), response: requestViewSchema });
