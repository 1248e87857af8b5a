export interface WaitForOptions {
  timeoutMs?: number;
  intervalMs?: number;
  message?: string;
}

/**
 * Polls `probe` until it returns a value that is not undefined/false, or fails after the timeout
 * with the last value seen. Use it to wait for "caught up" instead of sleeping.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, options: WaitForOptions = {}): Promise<T> {
  const { timeoutMs = 15_000, intervalMs = 20, message = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`waitFor timed out after ${timeoutMs} ms: ${message} (last: ${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
