import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@anthropic-ai/claude-code-linux-x64',
  'linux-arm64': '@anthropic-ai/claude-code-linux-arm64',
  'darwin-x64': '@anthropic-ai/claude-code-darwin-x64',
  'darwin-arm64': '@anthropic-ai/claude-code-darwin-arm64',
};

/**
 * The `claude` executable Claude Code sessions run: HS_CLAUDE_BINARY when set, else the native
 * binary of the installed `@anthropic-ai/claude-code` platform package (no postinstall needed),
 * else `claude` on PATH.
 */
export function resolveClaudeBinary(configured?: string, from = process.cwd()): string {
  if (configured) return configured;
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (pkg) {
    try {
      const binary = join(dirname(createRequire(join(from, 'package.json')).resolve(`${pkg}/package.json`)), 'claude');
      if (existsSync(binary)) return binary;
    } catch {
      // not installed here: PATH decides
    }
  }
  return 'claude';
}

/**
 * The CLI's session id for a Headspace session: the CLI takes only a UUID, and the same session must
 * get the same one after a restart so it is resumed (`--resume`), not started again.
 */
export function claudeSessionIdOf(sessionId: string): string {
  const h = createHash('sha256').update(`headspace-session:${sessionId}`).digest('hex');
  // RFC 4122 layout, version 5-style (name-based) and the variant bits.
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
