import { describe, expect, it } from 'vitest';
import { parseEnvelope } from './sentry-envelope';

const env = (...lines: string[]) => Buffer.from(lines.join('\n'));

describe('Sentry envelope framing', () => {
  it('reads newline-delimited items: header, then each item header and its one-line payload', () => {
    const parsed = parseEnvelope(env('{"event_id":"abc","dsn":"http://k@h/1"}', '{"type":"event"}', '{"message":"hi"}', '{"type":"session"}', '{"sid":"s"}'));
    expect(parsed.header).toEqual({ event_id: 'abc', dsn: 'http://k@h/1' });
    expect(parsed.items.map((i) => [i.type, i.payload.toString()])).toEqual([
      ['event', '{"message":"hi"}'],
      ['session', '{"sid":"s"}'],
    ]);
  });

  it('reads a length-delimited payload holding newlines, with or without the newline after it', () => {
    const payload = 'line one\nline two';
    const withNewline = parseEnvelope(env('{}', `{"type":"attachment","length":${payload.length}}`, payload, '{"type":"event","length":2}', '{}'));
    expect(withNewline.items.map((i) => i.payload.toString())).toEqual([payload, '{}']);
    const bytes = Buffer.concat([Buffer.from(`{}\n{"type":"attachment","length":3}\nabc{"type":"event"}\n{"a":1}`)]);
    expect(parseEnvelope(bytes).items.map((i) => [i.type, i.payload.toString()])).toEqual([
      ['attachment', 'abc'],
      ['event', '{"a":1}'],
    ]);
  });

  it('counts the length in bytes, not characters (multi-byte UTF-8 payloads)', () => {
    const payload = '{"message":"héllo ✓"}';
    const parsed = parseEnvelope(env('{}', `{"type":"event","length":${Buffer.byteLength(payload)}}`, payload));
    expect(JSON.parse(parsed.items[0].payload.toString())).toEqual({ message: 'héllo ✓' });
  });

  it('skips blank lines and CRLF blank lines between items; an envelope of only a header has no items', () => {
    expect(parseEnvelope(env('{}', '', '{"type":"event"}', '{}', '', '')).items).toHaveLength(1);
    expect(parseEnvelope(Buffer.from('{}\r\n\r\n{"type":"event"}\n{}')).items).toHaveLength(1);
    expect(parseEnvelope(Buffer.from('{"event_id":"x"}')).items).toEqual([]);
  });

  it.each([
    ['an empty body', '', '(root)'],
    ['a header that is not JSON', 'nope\n{"type":"event"}\n{}', 'envelope header'],
    ['a header that is an array', '[1]\n', 'envelope header'],
    ['an item header that is not JSON', '{}\n{type:event}\n{}', 'items.0.header'],
    ['an item without a type', '{}\n{"length":2}\n{}', 'items.0.header.type'],
    ['a negative length', '{}\n{"type":"event","length":-1}\n{}', 'items.0.header.length'],
    ['a fractional length', '{}\n{"type":"event","length":1.5}\n{}', 'items.0.header.length'],
    ['a length past the end', '{}\n{"type":"event","length":999}\n{}', 'items.0.header.length'],
  ])('refuses %s naming the part (%#)', (_what, text, field) => {
    expect(() => parseEnvelope(Buffer.from(text))).toThrow(expect.objectContaining({ code: 'CONTRACTS.VALIDATION_FAILED', field }));
  });

  it('refuses header bytes that are not UTF-8, and more than 100 items', () => {
    expect(() => parseEnvelope(Buffer.from([0x7b, 0xff, 0x7d]))).toThrow(expect.objectContaining({ field: 'envelope header' }));
    const many = ['{}', ...Array.from({ length: 101 }, () => '{"type":"session"}\n{}')].join('\n');
    expect(() => parseEnvelope(Buffer.from(many))).toThrow(expect.objectContaining({ field: 'items.100' }));
  });
});
