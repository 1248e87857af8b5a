import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContextWindow, preservedItems, renderPreserved, SESSION_FILE, type HookEngine, type HookOutcome, type HookSession } from '@headspace/agent-runtime';
import type { LifecyclePort } from '../run-session/session-ports';

/** The session runtime's own files in a workspace; ignored by git, so a run never commits them. */
export const RUNTIME_DIR = '.headspace';
const SETUP_MARKER = join(RUNTIME_DIR, 'setup.json');

/** Makes `.headspace/` in the workspace, ignored by git as a whole (runs commit with `add --all`). */
export async function runtimeDir(workspace: string): Promise<string> {
  const dir = join(workspace, RUNTIME_DIR);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, '.gitignore'), "# Headspace's session runtime files (backups, session state, transcripts): not project work\n*\n", { flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
  return dir;
}

/**
 * What async hooks said once they finished (their `systemMessage` or `additionalContext`, or the
 * reason of a deny), kept until the session's next turn takes it (Claude Code delivers it the same way).
 */
export class AsyncHookInbox {
  private messages: string[] = [];

  readonly push = (outcome: HookOutcome): void => {
    const said = [outcome.systemMessage, outcome.additionalContext, outcome.result === 'deny' ? outcome.reason : undefined].filter((t): t is string => !!t);
    if (said.length === 0) return;
    this.messages.push(`<hook-result event="${outcome.event}" async="true">\n${said.join('\n')}\n</hook-result>`);
  };

  take(): string[] {
    return this.messages.splice(0);
  }
}

/**
 * The hook lifecycle of a built-in session (seed 003 Req 3.1), with the inputs Claude Code documents:
 * Setup once per workspace (a marker in `.headspace/` claims it), SessionStart (the session file's
 * preserved items come back with a fresh start), UserPromptSubmit, Notification, PreCompact (with
 * the transcript written for backups) and SessionEnd.
 */
export class HookLifecycle implements LifecyclePort {
  constructor(
    private readonly hooks: HookEngine,
    private readonly session: HookSession,
    private readonly inbox: AsyncHookInbox,
  ) {}

  async start(source: 'startup' | 'resume' | 'compact'): Promise<string[]> {
    if (source !== 'compact') await this.setupOnce();
    const started = await this.hooks.run('SessionStart', { source }, this.session);
    const context = [...started.additionalContext];
    if (source === 'startup') {
      const preserved = await this.preservedFromEarlierSessions();
      if (preserved) context.push(preserved);
    }
    return context;
  }

  async promptSubmitted(prompt: string): Promise<{ blocked: boolean; reason?: string; context: string[] }> {
    const r = await this.hooks.run('UserPromptSubmit', { prompt }, this.session);
    return { blocked: r.blocked, ...(r.reason !== undefined ? { reason: r.reason } : {}), context: r.additionalContext };
  }

  async notify(message: string, type: string): Promise<void> {
    await this.hooks.run('Notification', { message, notification_type: type, title: 'Headspace' }, this.session);
  }

  async preCompact(trigger: 'auto' | 'manual', snapshot: unknown, transcriptPath?: string): Promise<{ messages: string[] }> {
    const r = await this.hooks.run('PreCompact', { trigger, context_snapshot: snapshot }, { ...this.session, ...(transcriptPath ? { transcriptPath } : {}) });
    return { messages: r.outcomes.flatMap((o) => (o.systemMessage ? [o.systemMessage] : [])) };
  }

  async ended(reason: string): Promise<void> {
    await this.hooks.run('SessionEnd', { reason }, this.session);
  }

  takeAsyncMessages(): string[] {
    return this.inbox.take();
  }

  /** Setup hooks run once per workspace, before its first session starts; the marker is claimed first, so racing sessions run them once. */
  private async setupOnce(): Promise<void> {
    if (!this.hooks.registrations().some((r) => r.event === 'Setup')) return;
    await runtimeDir(this.session.cwd);
    try {
      await writeFile(join(this.session.cwd, SETUP_MARKER), JSON.stringify({ sessionId: this.session.sessionId, at: new Date().toISOString() }) + '\n', { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return;
      throw e;
    }
    await this.hooks.run('Setup', { trigger: 'init' }, this.session);
  }

  /** Seed 003 Req 2.9: a session starting in a workspace whose session file holds preserved items gets them back. */
  private async preservedFromEarlierSessions(): Promise<string | undefined> {
    const file = join(this.session.cwd, SESSION_FILE);
    if (!(await readFile(file, 'utf8').then(() => true, () => false))) return undefined;
    const window = new ContextWindow({ windowTokens: 200_000, env: {} });
    if ((await window.loadSessionFile(file).catch(() => 0)) === 0) return undefined;
    return `Preserved by an earlier session in this workspace (${SESSION_FILE}):\n<preserved-context>\n${renderPreserved(preservedItems(window), 20_000)}\n</preserved-context>`;
  }
}
