import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from 'node:zlib';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

const gunzipAsync = promisify<Buffer, ZlibOptions, Buffer>(gunzip);
const inflateAsync = promisify<Buffer, ZlibOptions, Buffer>(inflate);
const inflateRawAsync = promisify<Buffer, ZlibOptions, Buffer>(inflateRaw);
const brotliAsync = promisify<Buffer, ZlibOptions, Buffer>(brotliDecompress as never);

/** Content-Encoding values the ingest routes decode (what Sentry SDKs and curl --compressed send). */
export const INGEST_ENCODINGS = ['identity', 'gzip', 'x-gzip', 'deflate', 'br'] as const;

const tooLarge = (limit: number) =>
  new HeadspaceError(ErrorCodes.gatewayPayloadTooLarge, `The request body decompresses to more than ${limit} bytes (HS_OPS_INGEST_MAX_BYTES)`, {
    field: 'Content-Encoding',
  });

/**
 * The body as the client meant it: decompressed per Content-Encoding, never past `maxBytes` of
 * output (a zip bomb stops there and is a 413, not a gigabyte in memory). A body that is not what
 * its encoding says is a 400 naming Content-Encoding; an encoding we do not speak is a 415.
 */
export async function decodeBody(body: Buffer, contentEncoding: string | string[] | undefined, maxBytes: number): Promise<Buffer> {
  const encodings = (Array.isArray(contentEncoding) ? contentEncoding.join(',') : (contentEncoding ?? ''))
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity');
  if (encodings.length > 2) {
    throw new HeadspaceError(ErrorCodes.gatewayUnsupportedMediaType, 'At most two Content-Encoding layers are decoded', { field: 'Content-Encoding' });
  }
  let bytes = body;
  // Encodings are listed in the order they were applied: undo them last to first.
  for (const encoding of encodings.reverse()) bytes = await decodeOne(bytes, encoding, maxBytes);
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

async function decodeOne(bytes: Buffer, encoding: string, maxBytes: number): Promise<Buffer> {
  const options: ZlibOptions = { maxOutputLength: maxBytes };
  try {
    switch (encoding) {
      case 'gzip':
      case 'x-gzip':
        return await gunzipAsync(bytes, options);
      case 'deflate':
        // RFC 9110 deflate is zlib-wrapped; some clients send raw deflate: the header byte tells.
        return await (looksZlibWrapped(bytes) ? inflateAsync : inflateRawAsync)(bytes, options);
      case 'br':
        return await brotliAsync(bytes, options);
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes);
    throw new HeadspaceError(ErrorCodes.gatewayBadRequest, `The request body is not valid ${encoding} data`, { field: 'Content-Encoding' });
  }
  throw new HeadspaceError(
    ErrorCodes.gatewayUnsupportedMediaType,
    `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported: send gzip, deflate, br or none`,
    { field: 'Content-Encoding' },
  );
}

/** A zlib stream starts with CMF=0x?8 and a check value making the first two bytes a multiple of 31. */
function looksZlibWrapped(bytes: Buffer): boolean {
  return bytes.length >= 2 && (bytes[0] & 0x0f) === 8 && ((bytes[0] << 8) | bytes[1]) % 31 === 0;
}

// fatal: bytes that are not UTF-8 are an error, never U+FFFD in place of the text.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8 text of `bytes`, or a 400 naming `field`. */
export function utf8Text(bytes: Uint8Array, field: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new HeadspaceError(ErrorCodes.gatewayBadJson, `${field} is not valid UTF-8`, { field });
  }
}

/** Content types each ingest route reads; none at all is allowed (the Node Sentry SDK sends none). */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
}

export function requireMediaType(contentType: string | undefined, accepted: readonly string[]): void {
  const type = mediaTypeOf(contentType);
  if (type === '' || accepted.includes(type)) return;
  throw new HeadspaceError(
    ErrorCodes.gatewayUnsupportedMediaType,
    `Content-Type ${JSON.stringify(type.slice(0, 100))} is not accepted here: send ${accepted.join(', ')}`,
    { field: 'Content-Type' },
  );
}
