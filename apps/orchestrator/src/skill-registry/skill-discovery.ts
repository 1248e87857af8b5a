import type { RegisteredSkill, SkillFileIssue } from '@headspace/contracts';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseSkillFile, type SkillFile } from './skill-file';

/** A directory holding `<skill-name>/SKILL.md` folders, and whose it is. */
export interface SkillSource {
  dir: string;
  origin: 'project' | 'user' | 'plugin';
  plugin?: string;
}

export interface Skill extends SkillFile {
  /** The name the listing, the Skill tool and slash commands use: `name`, or `plugin:name`. */
  key: string;
  origin: SkillSource['origin'];
  plugin?: string;
  file: string;
  /** The skill's folder: its other files (scripts, references) are there. */
  dir: string;
}

export interface SkillCatalog {
  skills: Skill[];
  invalid: SkillFileIssue[];
}

/**
 * Claude Code's order on a name clash: the operator's own (user) skills win over the project's;
 * plugin skills are namespaced `plugin:name` and clash with nothing. Within one origin the first
 * source listed wins (`.claude/skills` before `.headspace/skills`).
 */
const RANK: Record<SkillSource['origin'], number> = { user: 0, project: 1, plugin: 2 };

/** Reads every source; a missing directory is no skills, a bad SKILL.md an entry in `invalid`. */
export async function discoverSkills(sources: readonly SkillSource[]): Promise<SkillCatalog> {
  const found = await Promise.all(sources.map(readSource));
  return mergeSkills(sources.map((source, i) => ({ source, ...found[i] })));
}

/** The precedence rule on its own (pure): which skill each key resolves to. */
export function mergeSkills(read: ReadonlyArray<{ source: SkillSource; skills: Skill[]; invalid: SkillFileIssue[] }>): SkillCatalog {
  const ordered = read.map((r, i) => ({ ...r, i })).sort((a, b) => RANK[a.source.origin] - RANK[b.source.origin] || a.i - b.i);
  const byKey = new Map<string, Skill>();
  for (const { skills } of ordered) for (const skill of skills) if (!byKey.has(skill.key)) byKey.set(skill.key, skill);
  return {
    skills: [...byKey.values()].sort((a, b) => a.key.localeCompare(b.key)),
    invalid: read.flatMap((r) => r.invalid),
  };
}

async function readSource(source: SkillSource): Promise<{ skills: Skill[]; invalid: SkillFileIssue[] }> {
  const entries = await readdir(source.dir, { withFileTypes: true }).catch(() => []);
  const skills: Skill[] = [];
  const invalid: SkillFileIssue[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = join(source.dir, entry.name, 'SKILL.md');
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const parsed = parseSkillFile(text, file, entry.name);
    if (!parsed.ok) {
      invalid.push(parsed.issue);
      continue;
    }
    const key = source.plugin ? `${source.plugin}:${parsed.skill.name}` : parsed.skill.name;
    skills.push({ ...parsed.skill, key, origin: source.origin, ...(source.plugin ? { plugin: source.plugin } : {}), file, dir: dirname(file) });
  }
  return { skills, invalid };
}

const SKILL_DIRS = ['.claude', '.headspace'] as const;

/**
 * The skill sources of a session: `.claude/skills` and `.headspace/skills` of the workspace and of
 * the agents' home (the user's `~/.claude/skills`), then each enabled plugin's `skills/`.
 */
export function skillSources(opts: { workspace?: string; home: string; pluginDirs?: ReadonlyArray<{ plugin: string; dir: string }> }): SkillSource[] {
  return [
    ...(opts.workspace ? SKILL_DIRS.map((d): SkillSource => ({ dir: join(opts.workspace!, d, 'skills'), origin: 'project' })) : []),
    ...SKILL_DIRS.map((d): SkillSource => ({ dir: join(opts.home, d, 'skills'), origin: 'user' })),
    ...(opts.pluginDirs ?? []).map((p): SkillSource => ({ dir: p.dir, origin: 'plugin', plugin: p.plugin })),
  ];
}

export const listingOf = (catalog: SkillCatalog): { skills: RegisteredSkill[]; invalid: SkillFileIssue[] } => ({
  skills: catalog.skills.map((s) => ({ name: s.key, description: s.description, origin: s.origin, ...(s.plugin ? { plugin: s.plugin } : {}), file: s.file })),
  invalid: catalog.invalid,
});
