import type { RecordedEvent } from '@headspace/event-store';
import { EventProcessor } from '@headspace/platform';

/**
 * A process manager driven by passes (runs, asks): its events only wake a pass over the aggregate
 * they name; a pass does what the aggregate's stream says comes next. Passes over one aggregate
 * never overlap, and a wake-up during a pass gets one more after it. The instance holding the
 * processor's lease sweeps (at start and every `sweepMs`) the aggregates still active, for
 * wake-ups lost in a crash. Shutdown stops new passes and waits for those in flight.
 */
export abstract class PassProcessor<E extends RecordedEvent = RecordedEvent> extends EventProcessor<E> {
  private readonly passes = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private sweepTimer?: NodeJS.Timeout;
  protected stopping = false;

  /** What the passes are over, for log lines ("run", "ask"). */
  protected abstract readonly aggregate: string;
  protected abstract get sweepMs(): number;
  /** The aggregates a sweep wakes. */
  protected abstract activeIds(): Promise<string[]>;
  /** One pass over the aggregate; it must be safe to repeat. */
  abstract reconcile(id: string): Promise<void>;

  override onApplicationBootstrap(): void {
    super.onApplicationBootstrap();
    const sweep = () => {
      void this.sweep()
        .catch((error) => this.logger.warn(`${this.aggregate} sweep: ${(error as Error).message}`))
        .finally(() => {
          if (this.stopping) return;
          this.sweepTimer = setTimeout(sweep, this.sweepMs);
          this.sweepTimer.unref();
        });
    };
    sweep();
  }

  override async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.sweepTimer);
    await super.beforeApplicationShutdown();
    await Promise.allSettled([...this.passes.values()]);
  }

  async sweep(): Promise<void> {
    if (!this.runner.isLeaseHolder) return;
    for (const id of await this.activeIds()) this.trigger(id);
  }

  /** Asks for a pass over the aggregate. */
  trigger(id: string): void {
    if (this.stopping) return;
    if (this.passes.has(id)) {
      this.again.add(id);
      return;
    }
    const pass = this.reconcile(id)
      .catch((error) => this.logger.error(`${this.aggregate} ${id}: ${(error as Error).message}`))
      .finally(() => {
        this.passes.delete(id);
        if (this.again.delete(id)) this.trigger(id);
      });
    this.passes.set(id, pass);
  }

  /** Resolves when no pass is running or queued for the aggregate. */
  async settled(id: string): Promise<void> {
    while (this.passes.has(id)) await this.passes.get(id);
  }
}
