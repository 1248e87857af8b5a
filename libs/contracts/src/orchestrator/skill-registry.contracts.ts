import { z } from 'zod';
import { defineQuery } from '../messages';
import { teamNameSchema } from '../team-manager/team.contracts';
import { runSourceSchema } from './run-source';

/**
 * The skills registry (seed 003 Req 10, ADR 0046): `SKILL.md` skills in Claude Code's format found
 * in the project, the operator's user directory and the team's enabled plugins. Not the per-persona
 * `skill.md` of ADR 44 (skill.contracts.ts).
 */

export const skillOrigins = ['project', 'user', 'plugin'] as const;
export const skillOriginSchema = z.enum(skillOrigins);

/** A skill's name: Claude Code's rule (lowercase letters, digits and hyphens, at most 64). */
export const skillNameSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lowercase letters, digits and hyphens, at most 64');

export const registeredSkillSchema = z.object({
  /** `name`, or `plugin:name` for a plugin's skill. */
  name: z.string().max(200),
  description: z.string().max(1_024),
  origin: skillOriginSchema,
  plugin: z.string().max(200).optional(),
  file: z.string().max(4_096),
});

/** A SKILL.md that was skipped, naming the file and the frontmatter field. */
export const skillFileIssueSchema = z.object({ file: z.string().max(4_096), field: z.string().max(200), message: z.string().max(2_000) });

/** `hs.qry.orchestrator.list-skills`: the skills a session in this workspace and team would be offered. */
export const listSkills = defineQuery({
  service: 'orchestrator',
  name: 'list-skills',
  request: z.object({
    team: teamNameSchema,
    /** A directory under HS_SOURCE_ROOTS (as for asks); absent: user and plugin skills only. */
    workspace: runSourceSchema.optional(),
  }),
  response: z.object({ skills: z.array(registeredSkillSchema), invalid: z.array(skillFileIssueSchema) }),
});

export type RegisteredSkill = z.infer<typeof registeredSkillSchema>;
export type SkillFileIssue = z.infer<typeof skillFileIssueSchema>;
