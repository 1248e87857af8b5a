import { Injectable } from '@nestjs/common';

/** When shutdown began and when it must be over; readiness turns 503 once it begins. */
@Injectable()
export class ShutdownState {
  private deadline: number | undefined;

  begin(timeoutMs: number): void {
    this.deadline ??= Date.now() + timeoutMs;
  }

  get shuttingDown(): boolean {
    return this.deadline !== undefined;
  }

  /** Milliseconds left before the deadline (0 when passed); timeoutMs if shutdown has not begun. */
  remainingMs(timeoutMs: number): number {
    return this.deadline === undefined ? timeoutMs : Math.max(0, this.deadline - Date.now());
  }
}
