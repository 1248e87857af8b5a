/** One Server-Sent Events message. */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/**
 * Incremental SSE parser (WHATWG rules that matter here): fields `id`, `event`, `data`, `retry`;
 * comment lines start with `:`; a blank line ends a message; CRLF, CR and LF all end lines.
 */
export class SseParser {
  private buffer = '';
  private id?: string;
  private event?: string;
  private data: string[] = [];
  private retry?: number;

  constructor(
    private readonly onMessage: (message: SseMessage) => void,
    private readonly onComment: (text: string) => void = () => undefined,
  ) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let match: RegExpExecArray | null;
    const eol = /\r\n|\r|\n/g;
    let start = 0;
    while ((match = eol.exec(this.buffer))) {
      // A lone CR at the very end may be the first half of CRLF: wait for more.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      this.line(this.buffer.slice(start, match.index));
      start = match.index + match[0].length;
    }
    this.buffer = this.buffer.slice(start);
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.onMessage({ id: this.id, event: this.event, data: this.data.join('\n'), retry: this.retry });
      this.event = undefined;
      this.data = [];
      this.retry = undefined;
      return;
    }
    if (line.startsWith(':')) {
      this.onComment(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }

  /** The id of the last message seen (what Last-Event-ID must carry on reconnect). */
  get lastEventId(): string | undefined {
    return this.id;
  }
}
