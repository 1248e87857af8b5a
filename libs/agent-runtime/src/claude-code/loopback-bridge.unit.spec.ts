import { connect, createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeLoopbackPorts, loopbackPort } from './loopback-bridge';

let echo: Server;
let port: number;

beforeAll(async () => {
  echo = createServer((s) => s.on('data', (d) => s.end(`echo:${d}`)));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  port = (echo.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

describe('the loopback bridge (host side of a loopback-only sandbox)', () => {
  it('given loopback URLs, then their ports; given any other host or no URL, then none', () => {
    expect(loopbackPort('http://127.0.0.1:4010')).toBe(4010);
    expect(loopbackPort('http://localhost:8080/v1')).toBe(8080);
    expect(loopbackPort('http://[::1]:9000')).toBe(9000);
    expect(loopbackPort('https://127.0.0.1')).toBe(443);
    expect(loopbackPort('https://api.anthropic.com')).toBeUndefined();
    expect(loopbackPort('http://10.0.0.5:4010')).toBeUndefined();
    expect(loopbackPort('not a url')).toBeUndefined();
  });

  it('given a port, then a unix socket that reaches 127.0.0.1:port; closing removes the sockets', async () => {
    const bridge = await bridgeLoopbackPorts([port, port]);
    expect(bridge.ports).toEqual([{ port, socket: expect.stringContaining(`${port}.sock`) }]);
    const answer = await new Promise<string>((resolve, reject) => {
      const c = connect(bridge.ports[0].socket, () => c.write('hi'));
      let text = '';
      c.on('data', (d) => (text += d));
      c.on('end', () => resolve(text));
      c.on('error', reject);
    });
    expect(answer).toBe('echo:hi');
    await bridge.close();
    expect(existsSync(bridge.dir)).toBe(false);
  });
});
