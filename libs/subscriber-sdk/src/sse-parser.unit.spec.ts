import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser';

const feedAll = (parser: SseParser, chunks: string[]) => chunks.flatMap((c) => parser.feed(c));

describe('SSE parser', () => {
  it('joins multi-line data with newlines and names the event', () => {
    const parser = new SseParser();
    expect(parser.feed('event: task.claimed\ndata: {"a":\ndata: 1}\n\n')).toEqual([{ event: 'task.claimed', data: '{"a":\n1}', lastEventId: '' }]);
  });

  it('ignores comments and keeps data that only follows them', () => {
    const parser = new SseParser();
    expect(parser.feed(': connected\n\n: ping\n\ndata: x\n: inside a block\n\n')).toEqual([{ event: 'message', data: 'x', lastEventId: '' }]);
  });

  it('reads the retry field when it is digits only', () => {
    const parser = new SseParser();
    parser.feed('retry: 2000\n\n');
    expect(parser.retry).toBe(2000);
    parser.feed('retry: soon\n\n');
    expect(parser.retry).toBe(2000);
  });

  it('carries ids across messages and moves the last id on a data-less block (a ping with an id)', () => {
    const parser = new SseParser();
    const [first] = parser.feed('id: v1:a=1\ndata: one\n\n');
    expect(first.lastEventId).toBe('v1:a=1');
    const [second] = parser.feed('data: two\n\n');
    expect(second.lastEventId).toBe('v1:a=1');
    expect(parser.feed('id: v1:a=5\n: ping\n\n')).toEqual([]);
    expect(parser.lastEventId).toBe('v1:a=5');
  });

  it('does not take the id of a block cut off before its end, so a resume never skips that event', () => {
    const parser = new SseParser();
    parser.feed('id: v1:a=1\ndata: one\n\n');
    expect(parser.feed('id: v1:a=2\ndata: tw')).toEqual([]);
    expect(parser.lastEventId).toBe('v1:a=1');
    parser.reset();
    expect(parser.feed('id: v1:a=2\ndata: two\n\n')).toEqual([{ event: 'message', data: 'two', lastEventId: 'v1:a=2' }]);
  });

  it('parses the same stream the same whatever the chunking, with LF, CRLF or CR line ends and a BOM', () => {
    const text = '\ufeffretry: 10\r\nid: 7\r\nevent: e\r\ndata: a\r\ndata:b\r\n\r\ndata: c\rdata: d\r\rdata: e\n\n';
    const whole = new SseParser().feed(text);
    expect(whole).toEqual([
      { event: 'e', data: 'a\nb', lastEventId: '7' },
      { event: 'message', data: 'c\nd', lastEventId: '7' },
      { event: 'message', data: 'e', lastEventId: '7' },
    ]);
    const byChar = feedAll(new SseParser(), [...text]);
    expect(byChar).toEqual(whole);
  });

  it('takes a field without a colon as an empty value and ignores an id containing NUL', () => {
    const parser = new SseParser();
    expect(parser.feed('id: 1\ndata\n\nid: 2\0x\ndata: y\n\n')).toEqual([
      { event: 'message', data: '', lastEventId: '1' },
      { event: 'message', data: 'y', lastEventId: '1' },
    ]);
  });
});
