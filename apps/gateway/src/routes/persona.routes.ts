import {
  acquirePersona,
  cancelPersonaRequest,
  getPersonaRequest,
  listPersonas,
  pageQuerySchema,
  poolNameSchema,
  registerPersona,
  releasePersona,
  setMaxConcurrentAgents,
  setPoolMembership,
  updatePersona,
} from '@headspace/contracts';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'personas';

/** Personas and pools are one registry shared by every team: configuring it is an admin's job. */
export const personaRoutes: ApiRoute[] = [
  queryRoute(listPersonas, {
    operationId: 'listPersonas',
    path: '/api/v1/personas',
    tag,
    summary: 'Personas with their status, the pools, the wait queue and concurrency',
    query: pageQuerySchema.extend({ pool: poolNameSchema.optional() }),
    list: { field: 'personas', key: (p: { personaId: string }) => p.personaId },
  }),
  commandRoute(registerPersona, {
    operationId: 'registerPersona',
    path: '/api/v1/personas',
    tag,
    summary: 'Register a persona',
    role: 'admin',
    status: 201,
  }),
  commandRoute(setMaxConcurrentAgents, {
    operationId: 'setMaxConcurrentAgents',
    method: 'PUT',
    path: '/api/v1/personas/concurrency',
    tag,
    summary: 'Set how many agents may be active at once',
    role: 'admin',
  }),
  commandRoute(updatePersona, {
    operationId: 'updatePersona',
    method: 'PATCH',
    path: '/api/v1/personas/:personaId',
    tag,
    summary: "Change a persona's identity, role, mode or pools",
    role: 'admin',
  }),
  commandRoute(setPoolMembership, {
    operationId: 'setPoolMembership',
    method: 'PUT',
    path: '/api/v1/pools/:pool/members',
    tag,
    summary: 'Set the personas of a pool',
    role: 'admin',
  }),
  commandRoute(acquirePersona, {
    operationId: 'acquirePersona',
    path: '/api/v1/persona-requests',
    tag,
    summary: 'Ask for a persona of a pool (granted or queued)',
    status: 201,
  }),
  queryRoute(getPersonaRequest, {
    operationId: 'getPersonaRequest',
    path: '/api/v1/persona-requests/:requestId',
    tag,
    summary: 'A persona request and its grant',
  }),
  commandRoute(cancelPersonaRequest, {
    operationId: 'cancelPersonaRequest',
    path: '/api/v1/persona-requests/:requestId/cancel',
    tag,
    summary: 'Withdraw a queued persona request',
  }),
  commandRoute(releasePersona, {
    operationId: 'releasePersona',
    path: '/api/v1/persona-leases/:leaseId/release',
    tag,
    summary: 'Give a persona lease back (the queue is served)',
  }),
];
