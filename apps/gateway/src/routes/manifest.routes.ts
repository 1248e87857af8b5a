import { ErrorCodes, exportManifest, HeadspaceError, importManifest, teamNameSchema } from '@headspace/contracts';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { commandRoute, objectBody, queryRoute, type ApiRoute } from './api-route';

const tag = 'manifests';

/** The `team:` of a manifest text, when it can be read at all (the team-manager judges the rest). */
function manifestTeam(yaml: string): unknown {
  try {
    const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false });
    if (doc.errors.length) return undefined;
    const value = doc.toJS({ maxAliasCount: 50 }) as unknown;
    return value && typeof value === 'object' ? (value as { team?: unknown }).team : undefined;
  } catch {
    return undefined;
  }
}

const importRequest = importManifest.request.extend({ team: teamNameSchema });

export const manifestRoutes: ApiRoute[] = [
  commandRoute(importManifest, {
    operationId: 'importManifest',
    method: 'PUT',
    path: '/api/v1/teams/:team/manifest',
    tag,
    summary: 'Import team.yaml: the text as `application/yaml`, or JSON `{ "yaml": "…" }`',
    body: 'json-or-yaml',
    request: importRequest,
    build: ({ params, body }) => (typeof body === 'string' ? { yaml: body, ...params } : { ...objectBody(body), ...params }),
    call: async ({ team, yaml }: z.input<typeof importRequest>, ctx) => {
      const named = manifestTeam(yaml);
      // A token scoped to one team must not import the manifest of another through its own path.
      if (named !== undefined && named !== team) {
        throw new HeadspaceError(ErrorCodes.manifestInvalid, `The manifest is for team "${String(named)}", not "${team}"`, { field: 'team' });
      }
      return ctx.send(importManifest, { yaml });
    },
  }),
  queryRoute(exportManifest, {
    operationId: 'exportManifest',
    path: '/api/v1/teams/:team/manifest',
    tag,
    summary: "The team's manifest as YAML text and as data",
  }),
];
