import {
  createIngestKey,
  createOpsProject,
  ErrorCodes,
  exceptionSeveritySchema,
  getGroup,
  getOpsProject,
  groupCursorSchema,
  groupIdSchema,
  groupSortSchema,
  groupStateSchema,
  HeadspaceError,
  listGroups,
  listGroupTransitions,
  listIngestKeys,
  listOpsProjects,
  pageQuerySchema,
  revokeIngestKey,
  transitionGroup,
  updateOpsProject,
} from '@headspace/contracts';
import { z } from 'zod';
import { canSeeProject } from '../auth/access-policy';
import type { Principal } from '../auth/principal';
import { commandRoute, objectBody, queryRoute, type ApiRoute, type CallContext } from './api-route';

const tag = 'ops';

/** Who acts, as the events record it: the token's name, not what a body claims. */
const withActor = <T extends object>(input: T, ctx: CallContext) => ({ ...input, actor: ctx.principal.name });

/** A group outside the token's projects is answered as absent, like any resource the caller may not see. */
async function visibleGroup<T extends { project: string }>(groupId: string, ctx: CallContext, read: () => Promise<T>): Promise<T> {
  const group = await read();
  if (!canSeeProject(ctx.principal, group.project)) throw new HeadspaceError(ErrorCodes.opsGroupNotFound, `No exception group ${groupId}`, { field: 'groupId' });
  return group;
}

const groupParams = z.object({ groupId: groupIdSchema });
const groupFilters = pageQuerySchema.extend({
  project: z.string().min(1).max(100).optional(),
  state: groupStateSchema.optional(),
  severity: exceptionSeveritySchema.optional(),
  environment: z.string().min(1).max(64).optional(),
  release: z.string().min(1).max(200).optional(),
  sort: groupSortSchema.optional(),
  cursor: groupCursorSchema.optional(),
});

/**
 * Leon's operator surface: monitored projects and their ingest keys, exception groups with their
 * events and timeline, and the operator's moves on a group. Ingest itself is the ops-ingest module's.
 */
export const opsRoutes: ApiRoute[] = [
  queryRoute(listOpsProjects, {
    operationId: 'listOpsProjects',
    path: '/api/v1/ops/projects',
    tag,
    summary: 'Projects Leon monitors, by name',
    query: pageQuerySchema,
    build: () => ({}),
    list: { field: 'projects', key: (p: { project: string }) => p.project, visible: (p: { project: string }, principal: Principal) => canSeeProject(principal, p.project) },
  }),
  commandRoute(createOpsProject, {
    operationId: 'createOpsProject',
    path: '/api/v1/ops/projects',
    tag,
    summary:
      'Monitor a project: its name, repository (git URL or path), trusted flag, environments, the team that approves and runs its fixes, its test command and verify window; it gets a numeric DSN id',
    status: 201,
    call: (input: z.input<typeof createOpsProject.request>, ctx) => {
      if (!canSeeProject(ctx.principal, input.project)) throw new HeadspaceError(ErrorCodes.authForbidden, `This token may not act on project "${input.project}"`);
      return ctx.send(createOpsProject, withActor(input, ctx));
    },
  }),
  queryRoute(getOpsProject, {
    operationId: 'getOpsProject',
    path: '/api/v1/ops/projects/:project',
    tag,
    summary: 'One project (by name or numeric DSN id) with its settings and number of live ingest keys',
    project: 'path',
  }),
  commandRoute(updateOpsProject, {
    operationId: 'updateOpsProject',
    method: 'PATCH',
    path: '/api/v1/ops/projects/:project',
    tag,
    summary: "Change a project's display name, repository, trusted flag, environments, team, test command or verify window (seconds without an event of a fix's release before it is VERIFIED)",
    project: 'path',
    call: (input: z.input<typeof updateOpsProject.request>, ctx) => ctx.send(updateOpsProject, withActor(input, ctx)),
  }),
  queryRoute(listIngestKeys, {
    operationId: 'listIngestKeys',
    path: '/api/v1/ops/projects/:project/keys',
    tag,
    summary: "A project's ingest keys: id, first characters, label (never the key); `?includeRevoked=true` for revoked ones too",
    project: 'path',
    query: pageQuerySchema.extend({ includeRevoked: z.stringbool().optional() }),
    list: { field: 'keys', key: (k: { createdAt: string; keyId: string }) => `${k.createdAt}|${k.keyId}` },
  }),
  commandRoute(createIngestKey, {
    operationId: 'createIngestKey',
    path: '/api/v1/ops/projects/:project/keys',
    tag,
    summary: 'A new ingest key (DSN `http://<publicKey>@<gateway host>/<projectId>`), shown this once; it can only ingest into this project',
    role: 'admin',
    project: 'path',
    status: 201,
    call: (input: z.input<typeof createIngestKey.request>, ctx) => ctx.send(createIngestKey, withActor(input, ctx)),
  }),
  commandRoute(revokeIngestKey, {
    operationId: 'revokeIngestKey',
    method: 'DELETE',
    path: '/api/v1/ops/projects/:project/keys/:keyId',
    tag,
    summary: 'Revoke an ingest key: events sent with it are refused (401)',
    role: 'admin',
    project: 'path',
    body: undefined,
    build: ({ params, query }) => ({ ...query, ...params }),
    query: z.object({ reason: z.string().max(2_000).optional() }),
    call: (input: z.input<typeof revokeIngestKey.request>, ctx) => ctx.send(revokeIngestKey, withActor(input, ctx)),
  }),
  queryRoute(listGroups, {
    operationId: 'listExceptionGroups',
    path: '/api/v1/ops/groups',
    tag,
    summary: 'Exception groups, filtered by project, state, severity, environment or release; sorted by last seen (default), count or first seen, descending',
    query: groupFilters,
    // Paged by the service (keyset on the sort): limit and cursor pass through.
    build: ({ query, rawQuery }) => ({ ...query, ...(rawQuery.limit !== undefined ? { limit: rawQuery.limit } : {}), ...(rawQuery.cursor !== undefined ? { cursor: rawQuery.cursor } : {}) }),
    call: (input: z.input<typeof listGroups.request>, ctx) => {
      const { projects } = ctx.principal;
      if (projects !== '*' && (input.project === undefined || !canSeeProject(ctx.principal, input.project))) {
        throw new HeadspaceError(ErrorCodes.authForbidden, 'This token sees only some projects: name one of them with ?project=', { field: 'project' });
      }
      return ctx.send(listGroups, input);
    },
  }),
  queryRoute(getGroup, {
    operationId: 'getExceptionGroup',
    path: '/api/v1/ops/groups/:groupId',
    tag,
    summary: 'One exception group with its latest events (frames, stack, context) and its timeline',
    call: (input: { groupId: string }, ctx) => visibleGroup(input.groupId, ctx, () => ctx.send(getGroup, input)),
  }),
  queryRoute(listGroupTransitions, {
    operationId: 'listExceptionGroupTransitions',
    path: '/api/v1/ops/groups/:groupId/transitions',
    tag,
    summary: "A group's timeline, oldest first: opened, every lifecycle transition, spikes",
    call: async (input: { groupId: string }, ctx) => {
      if (ctx.principal.projects !== '*') await visibleGroup(input.groupId, ctx, () => ctx.send(getGroup, input));
      return ctx.send(listGroupTransitions, input);
    },
  }),
  commandRoute(transitionGroup, {
    operationId: 'transitionExceptionGroup',
    path: '/api/v1/ops/groups/:groupId/transitions',
    tag,
    summary:
      'Dismiss (with a reason), escalate, resolve by hand, reopen, or `fix` an escalated group (Leon starts its fix run); a move its state does not allow is 409 OPS.ILLEGAL_TRANSITION',
    request: z.intersection(transitionGroup.request, groupParams),
    build: ({ params, body }) => ({ ...objectBody(body), ...params }),
    call: async (input: z.input<typeof transitionGroup.request>, ctx) => {
      // A token of every project needs no look-up (which could lag the group's stream); a scoped one does.
      if (ctx.principal.projects !== '*') await visibleGroup(input.groupId, ctx, () => ctx.send(getGroup, { groupId: input.groupId }));
      return ctx.send(transitionGroup, withActor(input, ctx));
    },
  }),
];
