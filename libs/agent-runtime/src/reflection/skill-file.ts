import { createHash } from 'node:crypto';
import { ErrorCodes, HeadspaceError, type Reflection } from '@headspace/contracts';
import { writeFileAtomic } from '../context/atomic-write';
import { estimateTokens } from '../context/tokens';
import type { LearningsStore } from './learnings-store';

/**
 * Skill files (seed 000 §5.3, §7): `skill.md` holds the core identity (operator-defined sections
 * such as Core Competencies and Preferences) and "Learned Experience"; `experience.md` is the
 * append-only log of task completions. Evolution: v1 proposals the operator approves, v2 a
 * "Pending" section curated later, v3 automated curation under a token budget
 * (200 tokens core + 300 tokens experience by default).
 */
export const EXPERIENCE_SECTION = 'Learned Experience';
export const PENDING_SECTION = 'Pending';
export const DEFAULT_SKILL_BUDGET = { coreTokens: 200, experienceTokens: 300 } as const;
export const DEFAULT_EXPERIENCE_LOG_TOKENS = 1_500;

export interface SkillSection {
  name: string;
  lines: string[];
}

export interface SkillFile {
  title: string;
  sections: SkillSection[];
}

export function parseSkillFile(text: string): SkillFile {
  const lines = text.split('\n');
  const file: SkillFile = { title: '', sections: [] };
  let current: SkillSection | undefined;
  for (const line of lines) {
    if (line.startsWith('# ') && !file.title && !current) file.title = line.slice(2).trim();
    else if (line.startsWith('## ')) {
      current = { name: line.slice(3).trim(), lines: [] };
      file.sections.push(current);
    } else if (current && line.trim() !== '') current.lines.push(line);
  }
  return file;
}

export function renderSkillFile(file: SkillFile): string {
  const out = [`# ${file.title}`];
  for (const s of file.sections) out.push('', `## ${s.name}`, ...s.lines);
  return out.join('\n') + '\n';
}

function section(file: SkillFile, name: string): SkillSection {
  let s = file.sections.find((x) => x.name === name);
  if (!s) {
    s = { name, lines: [] };
    // Pending stays last; Learned Experience goes before it
    const pendingAt = file.sections.findIndex((x) => x.name === PENDING_SECTION);
    if (name !== PENDING_SECTION && pendingAt >= 0) file.sections.splice(pendingAt, 0, s);
    else file.sections.push(s);
  }
  return s;
}

const sectionTokens = (s: SkillSection[]) => estimateTokens(s.flatMap((x) => [`## ${x.name}`, ...x.lines]).join('\n'));

/** The operator-defined sections of the shipped default (seed 000 §5.3's example has these three). */
export const CORE_SECTIONS = ['Core Competencies', 'Preferences'] as const;

export interface SkillDefaultInput {
  persona: string;
  name?: string;
  description?: string;
  roleType?: string;
}

/**
 * The skill.md a persona gets when it has none: the seed's three sections, the core written from
 * what the persona registry says of it, Learned Experience empty. Well within the core budget.
 */
export function defaultSkillFile(input: SkillDefaultInput): string {
  const name = input.name ?? input.persona.charAt(0).toUpperCase() + input.persona.slice(1);
  const competencies = [
    ...(input.description ? [`- ${input.description.replace(/\s+/g, ' ').trim().slice(0, 300)}`] : []),
    `- ${input.roleType ? `${input.roleType} work` : 'Software engineering'} in the team's codebase`,
    '- Reading the codebase before changing it; small, tested changes',
  ];
  const preferences = ['- Explicit over clever', '- Leave the workspace building and its tests passing', '- Say what is unknown instead of guessing'];
  return renderSkillFile({
    title: `${name} — Skill Profile`,
    sections: [
      { name: CORE_SECTIONS[0], lines: competencies },
      { name: CORE_SECTIONS[1], lines: preferences },
      { name: EXPERIENCE_SECTION, lines: [] },
    ],
  });
}

/** Token counts of a skill file's core (every section but Learned Experience and Pending) and its Learned Experience. */
export function skillTokens(file: SkillFile): { coreTokens: number; experienceTokens: number } {
  const core = file.sections.filter((s) => s.name !== EXPERIENCE_SECTION && s.name !== PENDING_SECTION);
  const exp = file.sections.filter((s) => s.name === EXPERIENCE_SECTION);
  return { coreTokens: core.length ? sectionTokens(core) : 0, experienceTokens: exp.length ? sectionTokens(exp) : 0 };
}

/**
 * Pure merge (v1 approved / v3 auto → Learned Experience; v2 → Pending): appends each line not
 * already in the target section; returns a new file and the lines it added (none when every line
 * was there already, which makes a repeated merge a no-op).
 */
export function mergeSkillLines(file: SkillFile, lines: readonly string[], target: 'experience' | 'pending'): { file: SkillFile; added: string[] } {
  const next: SkillFile = { title: file.title, sections: file.sections.map((s) => ({ name: s.name, lines: [...s.lines] })) };
  const added: string[] = [];
  const present = new Set(next.sections.filter((s) => s.name === EXPERIENCE_SECTION || s.name === PENDING_SECTION).flatMap((s) => s.lines));
  for (const raw of lines) {
    const line = raw.startsWith('- ') ? raw : `- ${raw}`;
    if (present.has(line)) continue;
    present.add(line);
    added.push(line);
  }
  if (added.length) section(next, target === 'experience' ? EXPERIENCE_SECTION : PENDING_SECTION).lines.push(...added);
  return { file: next, added };
}

/**
 * Pure v3 curation: drops the oldest Learned Experience lines until that section is within
 * `experienceTokens`; never touches the core sections or Pending.
 */
export function curateSkillFile(file: SkillFile, budget: { experienceTokens: number } = DEFAULT_SKILL_BUDGET): { file: SkillFile; removed: string[] } {
  const next: SkillFile = { title: file.title, sections: file.sections.map((s) => ({ name: s.name, lines: [...s.lines] })) };
  const exp = next.sections.find((s) => s.name === EXPERIENCE_SECTION);
  const removed: string[] = [];
  while (exp && exp.lines.length > 0 && sectionTokens([exp]) > budget.experienceTokens) removed.push(exp.lines.shift() as string);
  return { file: next, removed };
}

export interface SkillUpdateProposal {
  id: string;
  persona: string;
  section: typeof EXPERIENCE_SECTION;
  line: string;
  createdAt: string;
  task?: string;
}

export interface CurationReport {
  persona: string;
  coreTokens: number;
  experienceTokens: number;
  /** Lines moved out of skill.md into experience.md to meet the budget. */
  removed: string[];
  /** The operator-defined core is over its budget: curation never rewrites it, it only reports. */
  coreOverBudget: boolean;
}

export class SkillFileStore {
  constructor(private readonly store: LearningsStore, private readonly now: () => Date = () => new Date()) {}

  private today(): string {
    return this.now().toISOString().slice(0, 10);
  }

  async read(persona: string): Promise<SkillFile | undefined> {
    const text = await this.store.readText(this.store.path(persona, 'skill.md'));
    return text === undefined ? undefined : parseSkillFile(text);
  }

  async readText(persona: string): Promise<string | undefined> {
    return this.store.readText(this.store.path(persona, 'skill.md'));
  }

  /** Operator-defined content (the stable core). */
  async write(persona: string, text: string): Promise<void> {
    await this.store.exclusive(persona, () => writeFileAtomic(this.store.path(persona, 'skill.md'), text.endsWith('\n') ? text : `${text}\n`));
  }

  /**
   * Seed 000 §7.1: at session close the agent may propose durable skill lines (the reflection's
   * `skill_updates`). They are returned, never written: the caller turns them into approvals.
   */
  proposeFromReflection(persona: string, reflection: Reflection, task?: string): SkillUpdateProposal[] {
    const date = this.today();
    return (reflection.skill_updates ?? []).map((raw) => {
      const text = raw.replace(/\s+/g, ' ').trim();
      const line = `- ${/\(\d{4}-\d{2}-\d{2}\)$/.test(text) ? text : `${text} (${date})`}`;
      return { id: createHash('sha256').update(`${persona}\n${line}`).digest('hex').slice(0, 16), persona, section: EXPERIENCE_SECTION, line, createdAt: this.now().toISOString(), task };
    });
  }

  /** v1: an approved proposal lands in Learned Experience. v2: `pending` parks it in the Pending section. */
  async applyProposal(proposal: SkillUpdateProposal, mode: 'approved' | 'pending'): Promise<void> {
    await this.store.exclusive(proposal.persona, async () => {
      const file = (await this.read(proposal.persona)) ?? { title: `${proposal.persona} — Skill Profile`, sections: [] };
      const target = section(file, mode === 'approved' ? EXPERIENCE_SECTION : PENDING_SECTION);
      if (!target.lines.includes(proposal.line)) target.lines.push(proposal.line);
      await writeFileAtomic(this.store.path(proposal.persona, 'skill.md'), renderSkillFile(file));
    });
  }

  /** The persona's skill.md, writing the shipped default first when it has none; `created` says whether it did. */
  async ensure(persona: string, defaults: Omit<SkillDefaultInput, 'persona'> = {}): Promise<{ text: string; created: boolean }> {
    return this.store.exclusive(persona, async () => {
      const existing = await this.store.readText(this.store.path(persona, 'skill.md'));
      if (existing !== undefined) return { text: existing, created: false };
      const text = defaultSkillFile({ persona, ...defaults });
      await writeFileAtomic(this.store.path(persona, 'skill.md'), text);
      return { text, created: true };
    });
  }

  /**
   * Merges lines into the persona's skill.md (the shipped default first when it has none): into
   * Learned Experience (`experience`, curated to `budget` when given, the removed lines moved to
   * experience.md) or the Pending section (`pending`). Idempotent: lines already there are skipped.
   */
  async merge(
    persona: string,
    lines: readonly string[],
    target: 'experience' | 'pending',
    budget?: { experienceTokens: number },
  ): Promise<{ added: string[]; removed: string[]; text: string }> {
    return this.store.exclusive(persona, async () => {
      const path = this.store.path(persona, 'skill.md');
      const current = parseSkillFile((await this.store.readText(path)) ?? defaultSkillFile({ persona }));
      const merged = mergeSkillLines(current, lines, target);
      const curated = budget ? curateSkillFile(merged.file, budget) : { file: merged.file, removed: [] };
      const text = renderSkillFile(curated.file);
      if (merged.added.length || curated.removed.length) await writeFileAtomic(path, text);
      if (curated.removed.length) {
        const expPath = this.store.path(persona, 'experience.md');
        const existing = (await this.store.readText(expPath)) ?? `# Experience: ${persona}\n`;
        await writeFileAtomic(expPath, `${existing.trimEnd()}\n${curated.removed.map((l) => `${l} — curated out of skill.md on ${this.today()}`).join('\n')}\n`);
      }
      return { added: merged.added, removed: curated.removed, text };
    });
  }

  /** v2 curation: move a pending line into Learned Experience (approve) or drop it (reject). */
  async resolvePending(persona: string, line: string, decision: 'approve' | 'reject'): Promise<void> {
    await this.store.exclusive(persona, async () => {
      const file = await this.read(persona);
      const pending = file?.sections.find((s) => s.name === PENDING_SECTION);
      const idx = pending?.lines.indexOf(line) ?? -1;
      if (!file || !pending || idx < 0) throw new HeadspaceError(ErrorCodes.skillProposalNotFound, `No pending skill line "${line}" for ${persona}`, { field: 'line' });
      pending.lines.splice(idx, 1);
      if (decision === 'approve') section(file, EXPERIENCE_SECTION).lines.push(line);
      if (pending.lines.length === 0) file.sections.splice(file.sections.indexOf(pending), 1);
      await writeFileAtomic(this.store.path(persona, 'skill.md'), renderSkillFile(file));
    });
  }

  /** experience.md: the append-only log of task completions. */
  async appendExperience(persona: string, entry: { task: string; status: string; summary: string }): Promise<void> {
    await this.store.exclusive(persona, async () => {
      const path = this.store.path(persona, 'experience.md');
      const existing = (await this.store.readText(path)) ?? `# Experience: ${persona}\n`;
      const line = `- ${this.today()} [${entry.status}] ${entry.task.replace(/\s+/g, ' ').trim()}: ${entry.summary.replace(/\s+/g, ' ').trim()}`;
      await writeFileAtomic(path, `${existing.trimEnd()}\n${line}\n`);
    });
  }

  /**
   * v3 curation: keep skill.md's Learned Experience under its token budget by moving the oldest
   * lines to experience.md; report (never rewrite) an operator core over its budget. The Pending
   * section is not counted: it is the operator's queue.
   */
  async curate(persona: string, budget: { coreTokens: number; experienceTokens: number } = DEFAULT_SKILL_BUDGET): Promise<CurationReport> {
    return this.store.exclusive(persona, async () => {
      const file = await this.read(persona);
      if (!file) return { persona, coreTokens: 0, experienceTokens: 0, removed: [], coreOverBudget: false };
      const core = file.sections.filter((s) => s.name !== EXPERIENCE_SECTION && s.name !== PENDING_SECTION);
      const exp = file.sections.find((s) => s.name === EXPERIENCE_SECTION);
      const removed: string[] = [];
      while (exp && exp.lines.length > 0 && sectionTokens([exp]) > budget.experienceTokens) removed.push(exp.lines.shift() as string);
      if (removed.length > 0) {
        await writeFileAtomic(this.store.path(persona, 'skill.md'), renderSkillFile(file));
        const path = this.store.path(persona, 'experience.md');
        const existing = (await this.store.readText(path)) ?? `# Experience: ${persona}\n`;
        await writeFileAtomic(path, `${existing.trimEnd()}\n\n## Curated from skill.md (${this.today()})\n${removed.join('\n')}\n`);
      }
      const coreTokens = sectionTokens(core);
      return { persona, coreTokens, experienceTokens: exp ? sectionTokens([exp]) : 0, removed, coreOverBudget: coreTokens > budget.coreTokens };
    });
  }

  /** Summarise/prune experience.md: keep the newest lines within `maxTokens`, archive the rest with a count. */
  async curateExperienceLog(persona: string, maxTokens = DEFAULT_EXPERIENCE_LOG_TOKENS): Promise<{ archived: number }> {
    return this.store.exclusive(persona, async () => {
      const path = this.store.path(persona, 'experience.md');
      const text = await this.store.readText(path);
      if (text === undefined) return { archived: 0 };
      const lines = text.trimEnd().split('\n');
      const head = lines[0]?.startsWith('# ') ? (lines.shift() as string) : `# Experience: ${persona}`;
      const body = lines.filter((l) => l.startsWith('- '));
      const kept: string[] = [];
      let tokens = estimateTokens(head);
      for (let i = body.length - 1; i >= 0; i--) {
        const t = estimateTokens(body[i]) + 1;
        if (tokens + t > maxTokens) break;
        tokens += t;
        kept.unshift(body[i]);
      }
      const dropped = body.slice(0, body.length - kept.length);
      if (dropped.length === 0) return { archived: 0 };
      const archivePath = this.store.path(persona, 'archive.md');
      const archive = (await this.store.readText(archivePath)) ?? `# Archive: ${persona}\n`;
      await writeFileAtomic(archivePath, `${archive.trimEnd()}\n${dropped.map((l) => `${l} — curated out of experience.md on ${this.today()}`).join('\n')}\n`);
      await writeFileAtomic(path, `${head}\n- ${this.today()} [summary] ${dropped.length} older entries archived to archive.md\n${kept.join('\n')}\n`);
      return { archived: dropped.length };
    });
  }
}
