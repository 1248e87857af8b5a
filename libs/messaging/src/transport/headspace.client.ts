import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { RequestDefinition } from '@headspace/contracts';
import type { NatsConnection } from '@nats-io/nats-core';
import { sendRequest, type SendRequestOptions } from '../request-reply/send-request';

/**
 * The client side of JetStreamTransport: `client.send(contract, body)` is `sendRequest` as an
 * Observable (the reply's result, or the handler's typed HeadspaceError). Events are not emitted
 * through a client: they leave a service only through its relay, from the events table.
 */
export class HeadspaceClient extends ClientProxy {
  constructor(
    private readonly connection: NatsConnection,
    private readonly options: SendRequestOptions = {},
  ) {
    super();
  }

  connect(): Promise<NatsConnection> {
    return Promise.resolve(this.connection);
  }

  /** The connection belongs to the platform, which drains it on shutdown. */
  close(): void {}

  unwrap<T>(): T {
    return this.connection as T;
  }

  protected publish(packet: ReadPacket<unknown>, callback: (packet: WritePacket) => void): () => void {
    let disposed = false;
    sendRequest(this.connection, packet.pattern as RequestDefinition, packet.data as never, this.options).then(
      ({ result }) => !disposed && callback({ response: result, isDisposed: true }),
      (err: unknown) => !disposed && callback({ err }),
    );
    return () => {
      disposed = true;
    };
  }

  protected dispatchEvent(): Promise<never> {
    return Promise.reject(new Error('Headspace events leave a service through its relay (the events table is its outbox), not through a client'));
  }
}
