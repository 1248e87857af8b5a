import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

/** What a Messages API request asked: the system prompt's `Situation:` and the tools offered. */
export interface RecordedLlmRequest {
  situation?: string;
  tools: string[];
}

export interface RecordingLlmProxy {
  url: string;
  requests: RecordedLlmRequest[];
  close(): Promise<void>;
}

const bodyOf = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

function record(body: Buffer): RecordedLlmRequest | undefined {
  try {
    const json = JSON.parse(body.toString('utf8')) as { system?: unknown; tools?: Array<{ name: string }> };
    const system = typeof json.system === 'string' ? json.system : JSON.stringify(json.system ?? '');
    const situation = /Situation: ([a-z0-9._-]+)/.exec(system)?.[1];
    return { ...(situation ? { situation } : {}), tools: (json.tools ?? []).map((t) => t.name) };
  } catch {
    return undefined;
  }
}

/**
 * An HTTP proxy in front of the simulator that keeps each request's tools list, so a spec can see
 * what the model was offered (the simulator answers the same whatever the tools are).
 */
export async function startRecordingLlmProxy(target: string): Promise<RecordingLlmProxy> {
  const requests: RecordedLlmRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    if (req.method === 'POST' && req.url?.startsWith('/v1/messages') && !req.url.includes('count_tokens')) {
      const seen = record(body);
      if (seen) requests.push(seen);
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)).map(([k, v]) => [k, String(v)]));
    const upstream = await fetch(`${target}${req.url}`, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) });
    res.writeHead(upstream.status, Object.fromEntries([...upstream.headers].filter(([k]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k))));
    if (upstream.body) Readable.fromWeb(upstream.body as never).pipe(res);
    else res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
