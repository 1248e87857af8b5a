import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody, requireMediaType } from './ingest-body';

const text = '{"message":"hello"}';

describe('ingest body decoding', () => {
  it('decodes gzip, deflate (zlib and raw), br and identity', async () => {
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(text)],
      ['x-gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
      ['deflate', deflateRawSync(text)],
      ['br', brotliCompressSync(text)],
      ['identity', Buffer.from(text)],
      [undefined, Buffer.from(text)],
    ] as const) {
      expect((await decodeBody(bytes, encoding, 1_000)).toString(), String(encoding)).toBe(text);
    }
  });

  it('undoes two layers last to first', async () => {
    expect((await decodeBody(gzipSync(deflateSync(text)), 'deflate, gzip', 1_000)).toString()).toBe(text);
  });

  it('stops a zip bomb at the limit: 413 naming Content-Encoding, without inflating it all', async () => {
    const bomb = gzipSync(Buffer.alloc(50_000_000));
    expect(bomb.length).toBeLessThan(100_000);
    await expect(decodeBody(bomb, 'gzip', 1_048_576)).rejects.toMatchObject({ code: 'GATEWAY.PAYLOAD_TOO_LARGE', field: 'Content-Encoding' });
    // Cut before its trailer: inflated to the end it would be a 400 (truncated); stopped at the limit it never gets there.
    await expect(decodeBody(bomb.subarray(0, bomb.length - 8), 'gzip', 1_048_576)).rejects.toMatchObject({ code: 'GATEWAY.PAYLOAD_TOO_LARGE' });
    await expect(decodeBody(Buffer.alloc(2_000), undefined, 1_000)).rejects.toMatchObject({ code: 'GATEWAY.PAYLOAD_TOO_LARGE' });
  });

  it('answers 400 for a body that is not what its encoding says, 415 for an unknown encoding', async () => {
    await expect(decodeBody(Buffer.from(text), 'gzip', 1_000)).rejects.toMatchObject({ code: 'GATEWAY.BAD_REQUEST', field: 'Content-Encoding' });
    await expect(decodeBody(gzipSync(text).subarray(0, 12), 'gzip', 1_000)).rejects.toMatchObject({ code: 'GATEWAY.BAD_REQUEST' });
    await expect(decodeBody(Buffer.from(text), 'zstd', 1_000)).rejects.toMatchObject({ code: 'GATEWAY.UNSUPPORTED_MEDIA_TYPE', field: 'Content-Encoding' });
  });

  it('accepts the listed media types (and none), refusing others with 415 naming Content-Type', () => {
    expect(() => requireMediaType(undefined, ['application/json'])).not.toThrow();
    expect(() => requireMediaType('application/JSON; charset=utf-8', ['application/json'])).not.toThrow();
    expect(() => requireMediaType('image/png', ['application/json'])).toThrow(expect.objectContaining({ code: 'GATEWAY.UNSUPPORTED_MEDIA_TYPE', field: 'Content-Type' }));
  });
});
