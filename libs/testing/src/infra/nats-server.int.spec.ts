import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { freePort, natsStatus, startNatsServer } from './index';

describe('startNatsServer', () => {
  it('starts a JetStream server; stop makes it unreachable; restart brings it back with its streams', async () => {
    const server = await startNatsServer();
    try {
      expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
      expect(await natsStatus(server.url)).toBe('jetstream');

      const stream = `hs_infra_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      const nc = await connect({ servers: server.url });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
      const ack = await jetstream(nc).publish(`${stream}.greeting`, 'hello');
      expect(ack.seq).toBe(1);
      await nc.close();

      const port = server.port;
      await server.stop();
      expect(await natsStatus(server.url)).toBe('unreachable');
      await expect(connect({ servers: server.url, reconnect: false, timeout: 500 })).rejects.toThrow();

      await server.restart();
      expect(server.port).toBe(port);
      expect(await natsStatus(server.url)).toBe('jetstream');
      const nc2 = await connect({ servers: server.url });
      const jsm2 = await jetstreamManager(nc2);
      expect((await jsm2.streams.info(stream)).state.messages).toBe(1);
      expect((await jsm2.streams.getMessage(stream, { seq: 1 }))?.string()).toBe('hello');
      await nc2.close();
    } finally {
      await server.dispose();
    }
    expect(existsSync(server.storeDir)).toBe(false);
  });

  it('honours a requested port', async () => {
    const port = await freePort();
    const server = await startNatsServer({ port });
    try {
      expect(server.port).toBe(port);
      expect(await natsStatus(`nats://127.0.0.1:${port}`)).toBe('jetstream');
    } finally {
      await server.dispose();
    }
    expect(await natsStatus(`nats://127.0.0.1:${port}`)).toBe('unreachable');
  });
});
