import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configPath } from './config';

/** Past this, any healthy read model has long caught up: older positions are not sent. */
const FRESH_MS = 60_000;
const TOKEN = /^([a-z][a-z0-9-]*):(\d+):(\d+)$/;

interface Stored {
  [endpoint: string]: { at: number; tokens: string[] };
}

/** Beside the config file: `positions.json`. */
export function positionsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(configPath(env)), 'positions.json');
}

/**
 * The log positions the gateway answered this CLI's last commands with (Headspace-Position), kept
 * between invocations — each command is its own process — so that the next read passes them in
 * Headspace-Min-Position and sees its own writes (`task add` then `task list`). One per service,
 * the furthest; forgotten after a minute.
 */
export class ReadPositions {
  constructor(
    readonly path: string,
    readonly endpoint: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The Headspace-Min-Position value for the next read, if a recent write left one. */
  current(): string | undefined {
    const entry = this.load()[this.endpoint];
    if (!entry || this.now() - entry.at > FRESH_MS || entry.tokens.length === 0) return undefined;
    return entry.tokens.join(',');
  }

  /** Keeps a Headspace-Position response header's tokens (the furthest per service). Never fails the command. */
  remember(header: string): void {
    try {
      const stored = this.load();
      const entry = stored[this.endpoint];
      const known = entry && this.now() - entry.at <= FRESH_MS ? entry.tokens : [];
      const byService = new Map<string, string>();
      for (const token of [...known, ...header.split(',').map((t) => t.trim())]) {
        const parsed = TOKEN.exec(token);
        if (!parsed) continue;
        const before = byService.get(parsed[1]);
        if (!before || later(token, before)) byService.set(parsed[1], token);
      }
      stored[this.endpoint] = { at: this.now(), tokens: [...byService.values()] };
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(stored)}\n`, { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch {
      // Only a later read's freshness is at stake, not the command that succeeded.
    }
  }

  private load(): Stored {
    try {
      if (!existsSync(this.path)) return {};
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Stored) : {};
    } catch {
      return {};
    }
  }
}

function later(a: string, b: string): boolean {
  const [, , ta, pa] = TOKEN.exec(a)!;
  const [, , tb, pb] = TOKEN.exec(b)!;
  return BigInt(ta) > BigInt(tb) || (ta === tb && BigInt(pa) > BigInt(pb));
}
