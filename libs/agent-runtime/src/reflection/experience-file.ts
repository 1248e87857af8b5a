import { writeFileAtomic } from '../context/atomic-write';
import type { LearningsStore } from './learnings-store';

/**
 * experience.md (seed 000 §5.3): the log of a persona's task completions, one line each — the
 * date, the outcome, the task, what was learned — newest last, pruned to a bound (oldest out, into
 * archive.md). Each line carries the reference of what it records (a session id), so recording the
 * same completion again (an at-least-once processor replaying) writes nothing.
 */
export const DEFAULT_EXPERIENCE_MAX_ENTRIES = 100;

export interface ExperienceEntry {
  /** What the line records, e.g. the session id: at most one line per ref. */
  ref: string;
  task: string;
  outcome: string;
  summary: string;
  learned?: string;
}

const oneLine = (s: string, max: number) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

export function experienceLine(date: string, e: ExperienceEntry): string {
  const learned = e.learned && oneLine(e.learned, 300) ? `; learned: ${oneLine(e.learned, 300)}` : '';
  return `- ${date} [${oneLine(e.outcome, 20)}] ${oneLine(e.task, 200)}: ${oneLine(e.summary, 300)}${learned} (ref: ${oneLine(e.ref, 100)})`;
}

/**
 * Pure: the log with `line` appended (unless a line of the same ref is there) and pruned to the
 * newest `maxEntries` entries. `pruned` are the entries that fell out, oldest first.
 */
export function appendExperienceLine(
  text: string | undefined,
  persona: string,
  line: string,
  ref: string,
  maxEntries = DEFAULT_EXPERIENCE_MAX_ENTRIES,
): { text: string; appended: boolean; pruned: string[] } {
  const lines = (text ?? '').trimEnd().split('\n');
  const head = lines[0]?.startsWith('# ') ? lines[0] : `# Experience: ${persona}`;
  const entries = lines.filter((l) => l.startsWith('- '));
  const appended = !entries.some((l) => l.endsWith(`(ref: ${ref})`));
  if (appended) entries.push(line);
  const pruned = entries.length > maxEntries ? entries.splice(0, entries.length - maxEntries) : [];
  return { text: `${head}\n${entries.join('\n')}\n`, appended, pruned };
}

export class ExperienceLog {
  constructor(
    private readonly store: LearningsStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async read(persona: string): Promise<string | undefined> {
    return this.store.readText(this.store.path(persona, 'experience.md'));
  }

  /** Appends the completion (once per ref) and prunes the log to `maxEntries`, archiving what falls out. */
  async record(persona: string, entry: ExperienceEntry, maxEntries = DEFAULT_EXPERIENCE_MAX_ENTRIES): Promise<{ appended: boolean; pruned: string[] }> {
    return this.store.exclusive(persona, async () => {
      const path = this.store.path(persona, 'experience.md');
      const today = this.now().toISOString().slice(0, 10);
      const next = appendExperienceLine(await this.store.readText(path), persona, experienceLine(today, entry), entry.ref, maxEntries);
      if (!next.appended && next.pruned.length === 0) return { appended: false, pruned: [] };
      if (next.pruned.length) {
        const archivePath = this.store.path(persona, 'archive.md');
        const archive = (await this.store.readText(archivePath)) ?? `# Archive: ${persona}\n`;
        await writeFileAtomic(archivePath, `${archive.trimEnd()}\n${next.pruned.map((l) => `${l} — pruned from experience.md on ${today}`).join('\n')}\n`);
      }
      await writeFileAtomic(path, next.text);
      return { appended: next.appended, pruned: next.pruned };
    });
  }
}
