import { AgentDefinitionError, hooksConfigSchema, splitFrontmatter, type HooksConfig } from '@headspace/agent-runtime';
import { skillNameSchema, type SkillFileIssue } from '@headspace/contracts';
import { z } from 'zod';

/** A `SKILL.md` as Claude Code writes it; keys it does not use (license, metadata, model…) are left alone. */
const skillFrontmatterSchema = z.looseObject({
  name: skillNameSchema,
  description: z.string().trim().min(1).max(1_024),
  'allowed-tools': z.union([z.string().max(2_000), z.array(z.string().max(200)).max(100)]).optional(),
  triggers: z.array(z.string().min(1).max(200)).max(50).optional(),
  hooks: hooksConfigSchema.optional(),
});

export interface SkillFile {
  name: string;
  description: string;
  allowedTools: string[];
  triggers: string[];
  hooks?: HooksConfig;
  /** The instructions: what the Skill tool puts into the conversation. */
  body: string;
}

export type ParsedSkillFile = { ok: true; skill: SkillFile } | { ok: false; issue: SkillFileIssue };

const toolsOf = (raw: string | string[] | undefined): string[] =>
  raw === undefined ? [] : (Array.isArray(raw) ? raw : raw.split(/[\s,]+/)).map((t) => t.trim()).filter(Boolean);

/**
 * Parses one `<dir>/<skill-name>/SKILL.md`: the frontmatter must carry a valid `name` equal to the
 * directory's and a `description` (what the model chooses by); a problem is returned naming the
 * file and the field, never thrown, so one bad skill is skipped and the session goes on.
 */
export function parseSkillFile(text: string, file: string, dirName: string): ParsedSkillFile {
  let frontmatter: unknown;
  let body: string;
  try {
    ({ frontmatter, body } = splitFrontmatter(text, file));
  } catch (error) {
    const field = error instanceof AgentDefinitionError ? (error.field ?? '(frontmatter)') : '(frontmatter)';
    return { ok: false, issue: { file, field, message: (error as Error).message.replace(/^Invalid agent definition [^:]*: [^:]*: /, '') } };
  }
  const parsed = skillFrontmatterSchema.safeParse(frontmatter);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.map(String).join('.') || '(frontmatter)';
    const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
    return { ok: false, issue: { file, field, message } };
  }
  const fm = parsed.data;
  if (fm.name !== dirName) return { ok: false, issue: { file, field: 'name', message: `must equal its directory's name "${dirName}"` } };
  return {
    ok: true,
    skill: {
      name: fm.name,
      description: fm.description,
      allowedTools: toolsOf(fm['allowed-tools']),
      triggers: fm.triggers ?? [],
      ...(fm.hooks ? { hooks: fm.hooks as HooksConfig } : {}),
      body: body.trim(),
    },
  };
}
