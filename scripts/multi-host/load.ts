import { randomUUID } from 'node:crypto';

/** One command the load sent: acknowledged when some attempt (the first, or its retry on the other gateway) got a 2xx. */
export interface SentCommand {
  key: string;
  kind: 'create-task' | 'claim-task';
  team: string;
  taskId?: string;
  sentAt: number;
  /** The first attempt's outcome: a status, or the network error's name. */
  first: string;
  acked: boolean;
}

export interface LoadOptions {
  gateways: string[];
  token: string;
  /** Teams the load spreads over: a team's task list takes its creations one at a time. */
  teams: string[];
  ratePerSecond: number;
  /** Per attempt; a partitioned host answers nothing, so this is what a client waits there. */
  timeoutMs?: number;
}

const ok = (status: string) => /^2\d\d$/.test(status);

/**
 * A steady stream of idempotent commands through the gateways, round robin, at a fixed rate: every
 * other command creates a task in one of the teams (Idempotency-Key = a fresh uuid), the rest claim
 * a task whose creation was acknowledged. A failed attempt is sent once more, with the same key, through the
 * other gateway (a client behind a load balancer). Every command is kept, acknowledged or not.
 */
export class Load {
  readonly sent: SentCommand[] = [];
  private readonly claimable: Array<{ team: string; taskId: string }> = [];
  private timer?: NodeJS.Timeout;
  private readonly inFlight = new Set<Promise<void>>();
  private tick = 0;

  constructor(private readonly options: LoadOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      const work = this.next().finally(() => this.inFlight.delete(work));
      this.inFlight.add(work);
    }, 1_000 / this.options.ratePerSecond);
  }

  /** Stops sending and waits for the answers still due. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.inFlight);
  }

  private async next(): Promise<void> {
    const n = this.tick++;
    const gateway = n % this.options.gateways.length;
    const claim = n % 2 === 1 ? this.claimable.shift() : undefined;
    const team = claim?.team ?? this.options.teams[(n >> 1) % this.options.teams.length];
    const command: SentCommand = claim
      ? { key: randomUUID(), kind: 'claim-task', team, taskId: claim.taskId, sentAt: Date.now(), first: '', acked: false }
      : { key: randomUUID(), kind: 'create-task', team, sentAt: Date.now(), first: '', acked: false };
    this.sent.push(command);
    const path = claim ? `/api/v1/teams/${team}/tasks/${claim.taskId}/claim` : `/api/v1/teams/${team}/tasks`;
    const body = claim ? { owner: `load-${n}` } : { subject: `load task ${n}` };
    const created = (taskId: string) => claim === undefined && this.claimable.push({ team, taskId });
    command.first = await this.attempt(this.options.gateways[gateway], path, command.key, body, created);
    if (ok(command.first)) {
      command.acked = true;
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
    const other = this.options.gateways[(gateway + 1) % this.options.gateways.length];
    command.acked = ok(await this.attempt(other, path, command.key, body, created));
  }

  private async attempt(gateway: string, path: string, key: string, body: unknown, created: (taskId: string) => void): Promise<string> {
    try {
      const res = await fetch(`${gateway}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      });
      const text = await res.text();
      if (res.status === 201) created((JSON.parse(text) as { taskId: string }).taskId);
      return String(res.status);
    } catch (error) {
      return (error as Error).name === 'TimeoutError' ? 'timeout' : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name);
    }
  }
}

export interface WindowStats {
  sent: number;
  firstAttemptErrors: number;
  notAcked: number;
  errorRate: number;
}

/** Commands first sent in [from, to): how many, how many failed at the first attempt, how many were never acknowledged. */
export function statsBetween(sent: SentCommand[], from: number, to: number): WindowStats {
  const inside = sent.filter((c) => c.sentAt >= from && c.sentAt < to);
  const firstAttemptErrors = inside.filter((c) => !ok(c.first)).length;
  return { sent: inside.length, firstAttemptErrors, notAcked: inside.filter((c) => !c.acked).length, errorRate: inside.length ? firstAttemptErrors / inside.length : 0 };
}
