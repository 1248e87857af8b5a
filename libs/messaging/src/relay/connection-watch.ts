import type { NatsConnection } from '@nats-io/nats-core';

/** Tracks whether a NATS connection is currently up, from its status stream. */
export class ConnectionWatch {
  private up = true;
  private readonly iterator: AsyncIterable<{ type: string }> & { stop?: () => void };

  constructor(private readonly nc: NatsConnection) {
    this.iterator = nc.status() as AsyncIterable<{ type: string }> & { stop?: () => void };
    void this.follow();
  }

  get connected(): boolean {
    return this.up && !this.nc.isClosed();
  }

  stop(): void {
    this.iterator.stop?.();
  }

  private async follow(): Promise<void> {
    try {
      for await (const status of this.iterator) {
        if (status.type === 'disconnect' || status.type === 'close') this.up = false;
        else if (status.type === 'reconnect') this.up = true;
      }
    } catch {
      this.up = false;
    }
  }
}
