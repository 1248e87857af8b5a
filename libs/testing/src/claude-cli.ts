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
 * The native `claude` binary of the dev dependency `@anthropic-ai/claude-code`, taken straight from
 * its platform package so no postinstall script has to run; undefined when this platform has none.
 */
export function findClaudeCli(): string | undefined {
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (pkg === undefined) return undefined;
  try {
    const require = createRequire(join(process.cwd(), 'package.json'));
    const binary = join(dirname(require.resolve(`${pkg}/package.json`)), 'claude');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The environment a spec gives the real CLI to talk to the Messages-API simulator at `baseUrl`
 * with its own `home`: no auto-update, no traffic but the model's. `situation` picks the
 * simulator's script (its X-Headspace-Situation header).
 */
export function simulatedClaudeEnv(home: string, baseUrl: string, situation?: string): Record<string, string> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sim',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...(situation ? { ANTHROPIC_CUSTOM_HEADERS: `X-Headspace-Situation: ${situation}` } : {}),
  };
}
