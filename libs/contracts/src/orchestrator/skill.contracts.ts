import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { teamNameSchema } from '../team-manager/team.contracts';

/**
 * Skill evolution (seed 000 §5.3, §7; issue 22 scope 3): every persona has a `skill.md` under the
 * orchestrator's agent home (`<HS_AGENT_HOME>/personas/<persona>/skill.md`) that goes into each of
 * its sessions' system prompts. A reflection's `skill_updates` become proposals, handled by the
 * team's curation mode: `approval` (v1, default) asks the team's approvals queue (kind
 * `skill-file-update`) and merges the lines once approved; `pending` (v2) parks them in the file's
 * Pending section for the operator to curate; `auto` (v3) merges them and curates the file to its
 * token budget. Every change of a skill file is a `skill.updated` on `skill-<persona>`; a team's
 * mode is `skill.curation-set` on `skillmode-<team>`.
 */
export const skillCurationModes = ['approval', 'pending', 'auto'] as const;
export const skillCurationModeSchema = z.enum(skillCurationModes);
export type SkillCurationMode = z.output<typeof skillCurationModeSchema>;

export const skillStreamId = (persona: string) => `skill-${persona}`;
export const skillModeStreamId = (team: string) => `skillmode-${team}`;

export const skillPersonaSchema = z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, 'must be lowercase letters, digits and hyphens');
/** What an operator may write: the seed's file is a few hundred tokens; this bounds a paste gone wrong. */
export const SKILL_FILE_MAX_CHARS = 20_000;

const at = z.iso.datetime();
const actor = z.string().min(1).max(200);
const line = z.string().min(1).max(600);

export const skillUpdated = defineEvent({
  service: 'orchestrator',
  category: 'skill',
  name: 'updated',
  schema: z.object({
    persona: skillPersonaSchema,
    /** The team whose session proposed the lines (none for an operator's edit). */
    team: teamNameSchema.optional(),
    /** approval: lines an approved `skill-file-update` merged; pending: lines parked for the operator; auto: merged and curated; operator: the file replaced through the API. */
    source: z.enum(['approval', 'pending', 'auto', 'operator']),
    approvalId: z.string().max(100).optional(),
    sessionId: z.string().max(200).optional(),
    added: z.array(line).max(50),
    /** Learned-experience lines curation moved out to experience.md to meet the token budget. */
    removed: z.array(line).max(500),
    tokens: z.number().int().nonnegative(),
    by: actor,
    at,
  }),
});

export const skillCurationSet = defineEvent({
  service: 'orchestrator',
  category: 'skill',
  name: 'curation-set',
  schema: z.object({ team: teamNameSchema, mode: skillCurationModeSchema, setBy: actor, at }),
});

export const skillEvents = [skillUpdated, skillCurationSet];

export const personaSkillViewSchema = z.object({
  persona: z.string(),
  text: z.string(),
  /** Estimated tokens of the core sections and of Learned Experience, against the seed's budget. */
  coreTokens: z.number().int().nonnegative(),
  experienceTokens: z.number().int().nonnegative(),
  budget: z.object({ coreTokens: z.number().int(), experienceTokens: z.number().int() }),
  /** Lines waiting in the Pending section (v2). */
  pending: z.array(z.string()),
  /** True when the persona has no skill.md yet: `text` is the shipped default its first session will write. */
  shippedDefault: z.boolean(),
});
export type PersonaSkillView = z.output<typeof personaSkillViewSchema>;

export const getPersonaSkill = defineQuery({
  service: 'orchestrator',
  name: 'get-persona-skill',
  request: z.object({ persona: skillPersonaSchema }),
  response: personaSkillViewSchema,
});

export const putPersonaSkill = defineCommand({
  service: 'orchestrator',
  name: 'put-persona-skill',
  request: z.object({
    persona: skillPersonaSchema,
    text: z
      .string()
      .max(SKILL_FILE_MAX_CHARS)
      .refine((t) => /^# \S/.test(t.trimStart()), { message: 'must be markdown starting with a "# <title>" line' }),
    updatedBy: actor.default('operator'),
  }),
  response: personaSkillViewSchema,
});

export const getSkillCuration = defineQuery({
  service: 'orchestrator',
  name: 'get-skill-curation',
  request: z.object({ team: teamNameSchema }),
  response: z.object({ team: z.string(), mode: skillCurationModeSchema }),
});

export const setSkillCuration = defineCommand({
  service: 'orchestrator',
  name: 'set-skill-curation',
  request: z.object({ team: teamNameSchema, mode: skillCurationModeSchema, setBy: actor.default('operator') }),
  response: z.object({ team: z.string(), mode: skillCurationModeSchema }),
});
