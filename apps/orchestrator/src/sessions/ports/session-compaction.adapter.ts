import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ContextWindow, preservedItems, renderPreserved, SESSION_FILE, triageConversation } from '@headspace/agent-runtime';
import type { CompactionPort } from '../run-session/session-ports';
import { recordContextHealth } from './context-metrics';
import { runtimeDir } from './hook-lifecycle.adapter';

/** The instruction of the summarising call (the simulator's compaction scenarios key on "context compaction"). */
export const COMPACTION_REQUEST = [
  'Your context window is nearly full: this is a context compaction. Summarise the conversation so far for the next part of this same session.',
  'Write plain text: the task, what is done (files changed, commands run and their outcome), what remains, the decisions taken and why, and anything you were about to do next.',
  'Do not call tools. Exact error messages, paths and test output are kept verbatim for you separately.',
].join('\n');

/**
 * Compaction of a session on its workspace (seed 003 Req 2.3–2.11): triage of the conversation,
 * the session-state file updated with what must survive (PRESERVE_VERBATIM / _STRUCTURED, merged
 * with what earlier compactions kept), the transcript written for PreCompact backups, and the
 * window's health recorded as metrics.
 */
export class SessionCompaction implements CompactionPort {
  constructor(
    readonly threshold: number,
    private readonly workspace: string,
    private readonly session: { sessionId: string; persona: string; model: string },
    private readonly windowTokens: number,
  ) {}

  request(): string {
    return COMPACTION_REQUEST;
  }

  async persist(input: { messages: Array<{ role: string; content: Array<Record<string, unknown>> }>; turn: number; known?: readonly string[] }) {
    await runtimeDir(this.workspace);
    const file = join(this.workspace, SESSION_FILE);
    const window = new ContextWindow({ windowTokens: this.windowTokens, env: {} });
    await window.loadSessionFile(file).catch(() => 0);
    const known = new Set(input.known ?? []);
    // The task prompt and earlier summaries come back with every compacted conversation: they are not items to keep again.
    const messages = input.messages.map((m) => ({ ...m, content: m.content.filter((b) => !(b.type === 'text' && known.has(String(b.text)))) }));
    triageConversation(messages, window);
    await mkdir(dirname(file), { recursive: true });
    const preserved = await window.saveSessionFile(file);
    const transcriptPath = join(this.workspace, '.headspace', 'transcripts', `${this.session.sessionId}.jsonl`);
    await mkdir(dirname(transcriptPath), { recursive: true });
    await writeFile(transcriptPath, input.messages.map((m) => JSON.stringify(m)).join('\n') + '\n', 'utf8');
    const items = preservedItems(window);
    const health = window.health();
    recordContextHealth(health, this.session);
    return {
      sessionFile: SESSION_FILE,
      preserved,
      preservedText: renderPreserved(items),
      transcriptPath,
      snapshot: { turn: input.turn, health, preserved: items.map((i) => ({ id: i.id, category: i.category, kind: i.kind, ...(i.toolName ? { toolName: i.toolName } : {}), content: i.content })) },
    };
  }
}
