import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, HeadspaceError, type Reflection } from '@headspace/contracts';
import { writeFileAtomic } from '../context/atomic-write';
import {
  parseLearnings,
  renderLearnings,
  sectionForCategory,
  learningSimilarity,
  type LearningEntry,
  type LearningSection,
  type LearningsFile,
} from './learnings-file';

/**
 * Learnings on disk (seed 001 "Learnings Files" + "Learning Lifecycle", seed 000 §5.3/§9.4):
 * `<home>/personas/<persona>/{skill.md, experience.md, learnings.md, archive.md}`, home defaulting
 * to `~/.headspace/`. Every write is atomic (temp + rename) and writes to one persona are
 * serialised in this process.
 */
export const DEFAULT_HEADSPACE_HOME = join(homedir(), '.headspace');

export const LEARNINGS_CAP = { core: 30, task: 30, total: 60 } as const;
/** Seed 001 consolidation triggers. */
export const STALE_AFTER_DAYS = 21;
export const CROSS_AGENT_VALIDATE_AFTER_DAYS = 14;
/** "5+ references across sprints" → core. */
export const CORE_PROMOTION_REFS = 5;
/** "confirmed across 3+ sprints" → candidate for rules / CLAUDE.md. */
export const RULE_PROMOTION_SPRINTS = 3;
export const MERGE_SIMILARITY = 0.8;

const PERSONA = /^[a-z][a-z0-9-]{0,62}$/;

export function assertPersonaName(persona: string, field = 'persona'): string {
  if (!PERSONA.test(persona)) {
    throw new HeadspaceError(ErrorCodes.learningsPersonaInvalid, `${field} "${persona}" must be lowercase letters, digits and hyphens`, { field });
  }
  return persona;
}

export interface ArchivedLine {
  date: string;
  section: LearningSection;
  content: string;
  reason: string;
}

export interface ConsolidationReport {
  persona: string;
  merged: Array<{ kept: string; dropped: string }>;
  archived: ArchivedLine[];
  promotedToCore: string[];
  demotedToTask: string[];
  /** Entries confirmed across 3+ sprints: propose them for `.claude/rules/` or CLAUDE.md (not written). */
  ruleCandidates: string[];
  /** Cross-agent notes older than 14 days awaiting acknowledge / act / discard. */
  crossAgentToValidate: string[];
  coreLines: number;
  taskLines: number;
}

export interface RoutedLearning {
  persona: string;
  section: LearningSection;
  content: string;
  from?: string;
}

export interface ApplyReflectionResult {
  routed: RoutedLearning[];
  /** Duplicates of an existing line: counted as a reference instead of a new line. */
  reinforced: RoutedLearning[];
  reports: ConsolidationReport[];
}

export interface LearningsStoreOptions {
  /** Defaults to `~/.headspace`. */
  home?: string;
  /** Clock for `added:` dates (tests pin it). */
  now?: () => Date;
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 86_400_000;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export class LearningsStore {
  readonly home: string;
  private readonly now: () => Date;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(opts: LearningsStoreOptions = {}) {
    this.home = opts.home ?? DEFAULT_HEADSPACE_HOME;
    this.now = opts.now ?? (() => new Date());
  }

  personaDir(persona: string): string {
    return join(this.home, 'personas', assertPersonaName(persona));
  }

  path(persona: string, file: 'skill.md' | 'experience.md' | 'learnings.md' | 'archive.md'): string {
    return join(this.personaDir(persona), file);
  }

  /** @internal serialise read-modify-write cycles of one persona (shared with SkillFileStore). */
  exclusive<T>(persona: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(persona) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    this.queues.set(persona, next.catch(() => undefined));
    return next;
  }

  /** @internal */
  async readText(path: string): Promise<string | undefined> {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async readLearnings(persona: string): Promise<LearningsFile> {
    const text = await this.readText(this.path(persona, 'learnings.md'));
    return text === undefined ? { persona, entries: [] } : parseLearnings(text, persona);
  }

  /** Lifecycle step 1 (seed): an empty learnings file with its sections. */
  async seed(persona: string): Promise<void> {
    await this.exclusive(persona, async () => {
      if ((await this.readText(this.path(persona, 'learnings.md'))) === undefined) {
        await writeFileAtomic(this.path(persona, 'learnings.md'), renderLearnings({ persona, entries: [] }));
      }
    });
  }

  /**
   * Lifecycle step 3 (reflect): route each suggested learning to its category in the reflecting
   * persona's file; `cross-agent` ones go to the target persona's "Cross-Agent Notes" with
   * `(from <persona>)`. Each touched file is then consolidated (cap, merge, archive).
   */
  async applyReflection(persona: string, reflection: Reflection): Promise<ApplyReflectionResult> {
    assertPersonaName(persona);
    const byTarget = new Map<string, RoutedLearning[]>();
    for (const l of reflection.suggested_learnings) {
      const cross = l.category === 'cross-agent';
      const target = cross ? assertPersonaName((l.for_agent ?? '').toLowerCase(), 'suggested_learnings.for_agent') : persona;
      const routed: RoutedLearning = { persona: target, section: sectionForCategory[l.category], content: oneLine(l.content), from: cross ? persona : undefined };
      byTarget.set(target, [...(byTarget.get(target) ?? []), routed]);
    }
    const result: ApplyReflectionResult = { routed: [], reinforced: [], reports: [] };
    for (const [target, learnings] of byTarget) {
      const { added, reinforced, report } = await this.addLearnings(target, learnings);
      result.routed.push(...added);
      result.reinforced.push(...reinforced);
      result.reports.push(report);
    }
    return result;
  }

  async addLearnings(persona: string, learnings: RoutedLearning[]): Promise<{ added: RoutedLearning[]; reinforced: RoutedLearning[]; report: ConsolidationReport }> {
    return this.exclusive(persona, async () => {
      const file = await this.readLearnings(persona);
      const today = day(this.now());
      const added: RoutedLearning[] = [];
      const reinforced: RoutedLearning[] = [];
      for (const l of learnings) {
        const same = file.entries.find((e) => e.section === l.section && learningSimilarity(e.content, l.content) >= MERGE_SIMILARITY);
        if (same) {
          same.refs += 1;
          same.last = today;
          reinforced.push(l);
        } else {
          file.entries.push({ section: l.section, tier: 'task', content: l.content, from: l.from, added: today, refs: 0, sprints: 0 });
          added.push(l);
        }
      }
      const report = await this.consolidateFile(file, today);
      return { added, reinforced, report };
    });
  }

  /** A learning was used again (e.g. cited in a session): counts towards core promotion; `sprint` also counts a sprint. */
  async recordReference(persona: string, content: string, opts: { sprint?: boolean } = {}): Promise<LearningEntry> {
    return this.exclusive(persona, async () => {
      const file = await this.readLearnings(persona);
      const entry = file.entries.find((e) => e.content === content) ?? file.entries.find((e) => learningSimilarity(e.content, content) >= MERGE_SIMILARITY);
      if (!entry) throw new HeadspaceError(ErrorCodes.learningsEntryNotFound, `No learning of ${persona} matches "${content}"`, { field: 'content' });
      const today = day(this.now());
      entry.refs += 1;
      entry.last = today;
      if (opts.sprint) entry.sprints += 1;
      await this.consolidateFile(file, today);
      return entry;
    });
  }

  /** Lifecycle step 4 (prune), runnable on its own (e.g. during a retro). */
  async consolidate(persona: string): Promise<ConsolidationReport> {
    return this.exclusive(persona, async () => this.consolidateFile(await this.readLearnings(persona), day(this.now())));
  }

  /**
   * Validate a cross-agent note (seed: acknowledged → merged into another section, acted upon →
   * integrated (kept as a core line), discarded → archive with rationale).
   */
  async resolveCrossAgentNote(
    persona: string,
    content: string,
    decision: { action: 'acknowledge'; section: Exclude<LearningSection, 'Cross-Agent Notes'> } | { action: 'act' } | { action: 'discard'; rationale: string },
  ): Promise<void> {
    await this.exclusive(persona, async () => {
      const file = await this.readLearnings(persona);
      const idx = file.entries.findIndex((e) => e.section === 'Cross-Agent Notes' && e.content === content);
      if (idx < 0) throw new HeadspaceError(ErrorCodes.learningsEntryNotFound, `No cross-agent note of ${persona} reads "${content}"`, { field: 'content' });
      const entry = file.entries[idx];
      const today = day(this.now());
      if (decision.action === 'discard') {
        file.entries.splice(idx, 1);
        await this.appendArchive(persona, [{ date: today, section: entry.section, content: entry.content, reason: `discarded: ${oneLine(decision.rationale)}` }]);
      } else if (decision.action === 'acknowledge') {
        entry.section = decision.section;
        entry.last = today;
      } else {
        entry.section = 'Codebase Patterns';
        entry.tier = 'core';
        entry.last = today;
      }
      await this.consolidateFile(file, today);
    });
  }

  private async consolidateFile(file: LearningsFile, today: string): Promise<ConsolidationReport> {
    const report: ConsolidationReport = {
      persona: file.persona,
      merged: [],
      archived: [],
      promotedToCore: [],
      demotedToTask: [],
      ruleCandidates: [],
      crossAgentToValidate: [],
      coreLines: 0,
      taskLines: 0,
    };
    for (const e of file.entries) if (!e.added) e.added = today;
    // 1. merge similar entries (same section)
    const kept: LearningEntry[] = [];
    for (const e of file.entries) {
      const twin = kept.find((k) => k.section === e.section && learningSimilarity(k.content, e.content) >= MERGE_SIMILARITY);
      if (!twin) {
        kept.push(e);
        continue;
      }
      twin.refs += e.refs;
      twin.sprints = Math.max(twin.sprints, e.sprints);
      if (e.added < twin.added) twin.added = e.added;
      if (e.last && (!twin.last || e.last > twin.last)) twin.last = e.last;
      if (e.tier === 'core') twin.tier = 'core';
      report.merged.push({ kept: twin.content, dropped: e.content });
    }
    let entries = kept;
    // 2. archive stale entries: older than 21 days and not referenced in the last 21 days (core
    //    lines are the proven ones: they leave only through the cap; cross-agent notes through validation)
    const stale = (e: LearningEntry) =>
      e.section !== 'Cross-Agent Notes' &&
      e.tier !== 'core' && daysBetween(e.added, today) > STALE_AFTER_DAYS && (!e.last || daysBetween(e.last, today) > STALE_AFTER_DAYS);
    for (const e of entries.filter(stale)) report.archived.push({ date: today, section: e.section, content: e.content, reason: `stale: older than ${STALE_AFTER_DAYS} days without recent references` });
    entries = entries.filter((e) => !stale(e));
    // 3. promote high-value entries
    for (const e of entries) {
      if (e.tier === 'task' && e.refs >= CORE_PROMOTION_REFS) {
        e.tier = 'core';
        report.promotedToCore.push(e.content);
      }
      if (e.sprints >= RULE_PROMOTION_SPRINTS) report.ruleCandidates.push(e.content);
    }
    // 4. cross-agent notes older than 14 days need validation
    for (const e of entries) {
      if (e.section === 'Cross-Agent Notes' && daysBetween(e.added, today) > CROSS_AGENT_VALIDATE_AFTER_DAYS) report.crossAgentToValidate.push(e.content);
    }
    // cap: core ≤ 30 (least referenced demoted), task ≤ 30 (least valuable evicted to the archive)
    const rank = (a: LearningEntry, b: LearningEntry) => a.refs - b.refs || (a.last ?? a.added).localeCompare(b.last ?? b.added) || a.added.localeCompare(b.added);
    const core = entries.filter((e) => e.tier === 'core').sort(rank);
    while (core.length > LEARNINGS_CAP.core) {
      const e = core.shift() as LearningEntry;
      e.tier = 'task';
      report.demotedToTask.push(e.content);
    }
    const task = entries.filter((e) => e.tier === 'task').sort(rank);
    const evicted = new Set<LearningEntry>();
    while (task.length > LEARNINGS_CAP.task) {
      const e = task.shift() as LearningEntry;
      evicted.add(e);
      report.archived.push({ date: today, section: e.section, content: e.content, reason: `evicted: over the ${LEARNINGS_CAP.total}-line cap (${LEARNINGS_CAP.task} task-relevant)` });
    }
    entries = entries.filter((e) => !evicted.has(e));
    file.entries = entries;
    report.coreLines = entries.filter((e) => e.tier === 'core').length;
    report.taskLines = entries.filter((e) => e.tier === 'task').length;
    await writeFileAtomic(this.path(file.persona, 'learnings.md'), renderLearnings(file));
    if (report.archived.length > 0) await this.appendArchive(file.persona, report.archived);
    return report;
  }

  private async appendArchive(persona: string, lines: ArchivedLine[]): Promise<void> {
    const path = this.path(persona, 'archive.md');
    const existing = (await this.readText(path)) ?? `# Archive: ${persona}\n`;
    const add = lines.map((l) => `- [${l.date}] (${l.section}) ${l.content} — ${l.reason}`).join('\n');
    await writeFileAtomic(path, `${existing.trimEnd()}\n${add}\n`);
  }

  async readArchive(persona: string): Promise<string> {
    return (await this.readText(this.path(persona, 'archive.md'))) ?? '';
  }

  /**
   * What to inject into a spawn (lifecycle step 2): every core line, then the task-relevant lines
   * that share the most words with the task (all of them when no task is given), as markdown.
   */
  async renderForPrompt(persona: string, task?: string, maxTaskLines: number = LEARNINGS_CAP.task): Promise<string> {
    const file = await this.readLearnings(persona);
    if (file.entries.length === 0) return '';
    let task_ = file.entries.filter((e) => e.tier === 'task');
    if (task) {
      const scored = task_.map((e) => ({ e, s: learningSimilarity(e.content, task) })).filter((x) => x.s > 0 || x.e.section === 'Cross-Agent Notes');
      task_ = scored.sort((a, b) => b.s - a.s).map((x) => x.e);
    }
    const chosen = new Set([...file.entries.filter((e) => e.tier === 'core'), ...task_.slice(0, maxTaskLines)]);
    return renderLearnings({ persona, entries: file.entries.filter((e) => chosen.has(e)) });
  }
}
