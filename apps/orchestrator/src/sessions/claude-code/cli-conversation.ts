import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { claudeSessionIdOf } from './claude-binary';

/**
 * Resolves once the CLI's persisted conversation of `sessionId` (the JSONL transcript under the CLI
 * home's `.claude/projects/<cwd>/`) holds the API message `messageId`, or after `timeoutMs`: the
 * CLI prints a message before it has always written it down, and a CLI stopped in between has no
 * conversation to `--resume`.
 */
export async function whenConversationHolds(home: string, sessionId: string, messageId: string, timeoutMs = 3_000): Promise<void> {
  const file = `${claudeSessionIdOf(sessionId)}.jsonl`;
  const projects = join(home, '.claude', 'projects');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dirs = await readdir(projects).catch(() => [] as string[]);
    for (const dir of dirs) {
      const text = await readFile(join(projects, dir, file), 'utf8').catch(() => '');
      if (text.includes(messageId)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
