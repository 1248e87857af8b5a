import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import pc from 'picocolors';
import type { ApiClient } from '../api-client';
import { CliError, ExitCode } from '../exit-codes';
import { printRecord, printTable, success } from '../output';
import type { RunCommandKit } from '../run/run-commands';

type Row = Record<string, unknown>;
const enc = encodeURIComponent;
const idem = () => ({ 'idempotency-key': randomUUID() });
const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];

interface CreateOptions {
  event: string[];
  team?: string[];
  project?: string[];
  secretEnv?: string;
  description?: string;
}

/** The create body from the command line; `--secret-env NAME` reads the secret from the environment (out of shell history and `ps`). */
export function createWebhookBody(url: string, o: CreateOptions, env: NodeJS.ProcessEnv): Row {
  if (!o.event?.length) throw new CliError(ExitCode.usage, '--event is required: an event type, `<category>.*` or `*` (repeatable)');
  let secret: string | undefined;
  if (o.secretEnv) {
    secret = env[o.secretEnv];
    if (!secret) throw new CliError(ExitCode.usage, `--secret-env ${o.secretEnv} but ${o.secretEnv} is not set`);
  }
  return {
    url,
    eventTypes: o.event,
    ...(o.team?.length ? { teams: o.team } : {}),
    ...(o.project?.length ? { projects: o.project } : {}),
    ...(secret ? { secret } : {}),
    ...(o.description ? { description: o.description } : {}),
  };
}

const showWebhook = (kit: RunCommandKit, cmd: Command, hook: Row) => kit.show(cmd, hook, () => printRecord(kit.io, hook));

/** `headspace webhooks …`: webhook subscriptions (signed CloudEvents POSTs) through the REST API. */
export function addWebhookCommands(program: Command, kit: RunCommandKit, env: NodeJS.ProcessEnv): void {
  const { io } = kit;
  const api = (cmd: Command): ApiClient => kit.client(cmd);
  const hooks = program.command('webhooks').description('Webhook subscriptions: events POSTed, signed, to your URL');

  hooks
    .command('create')
    .argument('<url>', 'http(s) URL that receives the deliveries')
    .option('--event <type>', 'an event type, `<category>.*` or `*` (repeatable, or comma-separated)', collect)
    .option('--team <name>', 'only events of this team (repeatable)', collect)
    .option('--project <name>', 'only events of this project (repeatable)', collect)
    .option('--secret-env <NAME>', 'take the signing secret from this environment variable (default: one is generated and shown once)')
    .option('--description <text>')
    .description('Subscribe a URL to events')
    .action(async (url: string, o: CreateOptions, cmd: Command) => {
      const created = await api(cmd).post<Row>('/api/v1/webhooks', createWebhookBody(url, o, env), idem());
      kit.show(cmd, created, () => {
        success(io, `Webhook ${pc.bold(String(created.id))} created for ${String(created.url)}`);
        if (created.secret) io.out.write(`Signing secret (shown once, keep it): ${String(created.secret)}\n`);
      });
    });

  hooks
    .command('list')
    .description('Every subscription this token may see')
    .action(async (_o, cmd: Command) => {
      const { webhooks } = await api(cmd).get<{ webhooks: Row[] }>('/api/v1/webhooks');
      kit.show(cmd, webhooks, () =>
        printTable(
          io,
          webhooks,
          [['id', (w) => w.id], ['url', (w) => w.url], ['events', (w) => (w.eventTypes as string[]).join(',')], ['teams', (w) => (w.teams as string[] | null)?.join(',') ?? '*'], ['enabled', (w) => w.enabled]],
          'No webhooks yet.',
        ),
      );
    });

  hooks
    .command('show')
    .argument('<id>')
    .description('One subscription')
    .action(async (id: string, _o, cmd: Command) => showWebhook(kit, cmd, await api(cmd).get<Row>(`/api/v1/webhooks/${enc(id)}`)));

  for (const [name, enabled] of [['enable', true], ['disable', false]] as const) {
    hooks
      .command(name)
      .argument('<id>')
      .description(enabled ? 'Deliver again (pending deliveries resume)' : 'Stop delivering (events meanwhile are not scheduled)')
      .action(async (id: string, _o, cmd: Command) => {
        const hook = await api(cmd).request<Row>('PATCH', `/api/v1/webhooks/${enc(id)}`, { body: { enabled }, headers: idem() });
        kit.show(cmd, hook, () => success(io, `Webhook ${pc.bold(id)} ${enabled ? 'enabled' : 'disabled'}`));
      });
  }

  hooks
    .command('delete')
    .argument('<id>')
    .description('Delete a subscription and its pending deliveries')
    .action(async (id: string, _o, cmd: Command) => {
      await api(cmd).request('DELETE', `/api/v1/webhooks/${enc(id)}`);
      kit.show(cmd, { id, deleted: true }, () => success(io, `Webhook ${pc.bold(id)} deleted`));
    });

  hooks
    .command('deliveries')
    .argument('<id>')
    .option('--limit <n>', 'how many, newest first', '50')
    .description("A subscription's latest deliveries")
    .action(async (id: string, o: { limit: string }, cmd: Command) => {
      const { deliveries } = await api(cmd).get<{ deliveries: Row[] }>(`/api/v1/webhooks/${enc(id)}/deliveries`, { limit: Number(o.limit) });
      kit.show(cmd, deliveries, () =>
        printTable(
          io,
          deliveries,
          [['delivery', (d) => d.deliveryId], ['event', (d) => d.eventType], ['state', (d) => d.state], ['code', (d) => d.responseStatus ?? '-'], ['attempts', (d) => d.attempts], ['next', (d) => d.nextAttemptAt ?? '-'], ['error', (d) => d.lastError ?? '']],
          'No deliveries yet.',
        ),
      );
    });

  hooks
    .command('redeliver')
    .argument('<id>')
    .argument('<delivery-id>')
    .description("Send a delivery's event again")
    .action(async (id: string, deliveryId: string, _o, cmd: Command) => {
      const d = await api(cmd).post<Row>(`/api/v1/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}/redeliver`, {}, idem());
      kit.show(cmd, d, () => success(io, `Delivery ${pc.bold(String(d.deliveryId))} scheduled`));
    });

  hooks
    .command('backfill')
    .argument('<id>')
    .requiredOption('--since <position-or-time>', 'a log position (a CloudEvent `hsposition`) or an ISO-8601 time')
    .description('Deliver again the matching events since then (within the event streams’ retention)')
    .action(async (id: string, o: { since: string }, cmd: Command) => {
      const r = await api(cmd).post<Row>(`/api/v1/webhooks/${enc(id)}/backfill`, { since: o.since }, idem());
      kit.show(cmd, r, () => success(io, `${String(r.scheduled)} events scheduled${r.truncated ? ' (stopped at HS_WEBHOOK_BACKFILL_MAX)' : ''}`));
    });
}
