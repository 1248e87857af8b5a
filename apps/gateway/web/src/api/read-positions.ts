const TOKEN = /^([a-z][a-z0-9-]*):(\d+):(\d+)$/;

/** Whether token `a` lies after `b` in their service's log: by transaction id, then global position. */
function later(a: RegExpExecArray, b: RegExpExecArray): boolean {
  const [ta, tb] = [BigInt(a[2]), BigInt(b[2])];
  return ta > tb || (ta === tb && BigInt(a[3]) > BigInt(b[3]));
}

/**
 * The furthest log position per service this page has seen: on events of the stream (their
 * `position`) and in Headspace-Position of its own commands. Reads send them back in
 * Headspace-Min-Position, so a view reloaded because an event arrived shows that event even when
 * the event reached the stream before the service's read models took it in.
 */
export class ReadPositions {
  private readonly byService = new Map<string, RegExpExecArray>();

  remember(tokens: string | undefined): void {
    for (const token of (tokens ?? '').split(',')) {
      const parsed = TOKEN.exec(token.trim());
      if (!parsed) continue;
      const known = this.byService.get(parsed[1]);
      if (!known || later(parsed, known)) this.byService.set(parsed[1], parsed);
    }
  }

  /** The Headspace-Min-Position value, or undefined before anything was seen. */
  current(): string | undefined {
    return this.byService.size ? [...this.byService.values()].map((p) => p[0]).join(',') : undefined;
  }
}
