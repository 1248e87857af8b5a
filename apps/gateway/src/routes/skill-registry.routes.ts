import { listSkills, runSourceSchema } from '@headspace/contracts';
import { z } from 'zod';
import { queryRoute, type ApiRoute } from './api-route';

/** The skills registry (ADR 0046): SKILL.md skills a session is offered. Persona skill files are skill.routes.ts. */
export const skillRegistryRoutes: ApiRoute[] = [
  queryRoute(listSkills, {
    operationId: 'listSkills',
    path: '/api/v1/teams/:team/skills',
    tag: 'skills',
    summary:
      'SKILL.md skills a session in `workspace` of the team is offered (its `.claude/skills` and `.headspace/skills`, the user dir, the team’s enabled plugins as `plugin:name`): name, description, origin, file; on a name clash user > project. SKILL.md files skipped for bad frontmatter are listed with file, field and message',
    query: z.object({ workspace: runSourceSchema.optional() }),
  }),
];
