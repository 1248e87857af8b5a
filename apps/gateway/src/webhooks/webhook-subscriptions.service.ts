import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, ValidationError } from '@headspace/contracts';
import { canSeeProject } from '../auth/access-policy';
import { canSeeTeam, type Principal } from '../auth/principal';
import { deliveryIdOf } from './event-matching';
import type { CreateWebhookRequest, UpdateWebhookRequest } from './subscription.policy';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookSubscriptionsRepository, type SubscriptionRow } from './webhook-subscriptions.repository';
import { WebhookUrlGuard } from './webhook-url-guard';
import type { WebhookDeliveryView, WebhookView } from './webhook.views';

const view = ({ sealedSecret: _sealed, ...rest }: SubscriptionRow): WebhookView => rest;

/**
 * Webhook subscriptions (ADR 0027): kept in the gateway's schema, each change logged beside it. A
 * token limited to some teams (projects) may only hold subscriptions filtered to those.
 */
@Injectable()
export class WebhookSubscriptionsService {
  constructor(
    private readonly repo: WebhookSubscriptionsRepository,
    private readonly secrets: WebhookSecrets,
    private readonly urlGuard: WebhookUrlGuard,
  ) {}

  async create(input: CreateWebhookRequest, principal: Principal): Promise<WebhookView & { secret?: string }> {
    this.checkScope(principal, input.teams ?? null, input.projects ?? null);
    await this.checkTarget(input.url);
    const id = `wh_${randomBytes(12).toString('hex')}`;
    const secret = input.secret ?? this.secrets.generate();
    const row: SubscriptionRow = {
      id,
      url: input.url,
      eventTypes: input.eventTypes,
      teams: input.teams ?? null,
      projects: input.projects ?? null,
      description: input.description,
      enabled: true,
      disabledReason: null,
      failingSince: null,
      createdBy: principal.name,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      sealedSecret: this.secrets.seal(id, secret),
    };
    await this.repo.transaction(async (tx) => {
      await this.repo.insert(row, tx);
      await this.repo.log(id, 'created', principal.name, tx, undefined, { url: row.url, eventTypes: row.eventTypes, teams: row.teams, projects: row.projects });
    });
    return { ...view(row), ...(input.secret === undefined ? { secret } : {}) };
  }

  async list(principal: Principal): Promise<WebhookView[]> {
    return (await this.repo.list()).filter((s) => this.visible(principal, s)).map(view);
  }

  async get(id: string, principal: Principal): Promise<WebhookView> {
    return view(await this.visibleRow(id, principal));
  }

  async update(input: UpdateWebhookRequest, principal: Principal): Promise<WebhookView> {
    if (input.url !== undefined) await this.checkTarget(input.url);
    return this.repo.transaction(async (tx) => {
      const current = await this.repo.find(input.id, tx, true);
      if (!current || !this.visible(principal, current)) throw notFound(input.id);
      const next: SubscriptionRow = {
        ...current,
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.eventTypes !== undefined ? { eventTypes: input.eventTypes } : {}),
        ...(input.teams !== undefined ? { teams: input.teams } : {}),
        ...(input.projects !== undefined ? { projects: input.projects } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.secret !== undefined ? { sealedSecret: this.secrets.seal(current.id, input.secret) } : {}),
      };
      this.checkScope(principal, next.teams, next.projects);
      if (input.enabled !== undefined && input.enabled !== current.enabled) {
        next.enabled = input.enabled;
        next.disabledReason = input.enabled ? null : `disabled by ${principal.name}`;
        next.failingSince = null;
        await this.repo.log(current.id, input.enabled ? 'enabled' : 'disabled', principal.name, tx);
      }
      const changed = (['url', 'eventTypes', 'teams', 'projects', 'description', 'secret'] as const).filter((k) => input[k] !== undefined);
      if (changed.length) await this.repo.log(current.id, 'updated', principal.name, tx, undefined, { fields: changed });
      await this.repo.update(next, tx);
      return view({ ...next, updatedAt: new Date().toISOString() });
    });
  }

  async remove(id: string, principal: Principal): Promise<void> {
    await this.visibleRow(id, principal);
    await this.repo.transaction(async (tx) => {
      if (!(await this.repo.remove(id, tx))) throw notFound(id);
      await this.repo.log(id, 'deleted', principal.name, tx);
    });
  }

  async deliveries(id: string, principal: Principal, limit: number): Promise<WebhookDeliveryView[]> {
    await this.visibleRow(id, principal);
    return this.repo.deliveries(id, limit);
  }

  /** Schedules the delivery's event once more, as a new delivery of its own (the old one's log stays as it was). */
  async redeliver(id: string, deliveryId: string, principal: Principal): Promise<WebhookDeliveryView> {
    await this.visibleRow(id, principal);
    const original = await this.repo.delivery(id, deliveryId);
    if (!original) throw new HeadspaceError(ErrorCodes.webhookDeliveryNotFound, `Webhook ${id} has no delivery ${deliveryId}`, { field: 'deliveryId' });
    const origin = `redelivery:${randomBytes(8).toString('hex')}`;
    const newId = deliveryIdOf(id, original.eventId, origin);
    await this.repo.transaction(async (tx) => {
      await this.repo.schedule([{ ...original, deliveryId: newId, origin }], tx);
      await this.repo.log(id, 'redelivery-requested', principal.name, tx, undefined, { deliveryId, newDeliveryId: newId });
    });
    return (await this.repo.delivery(id, newId))!;
  }

  /** The subscription as the caller may see it, or 404 (a scoped token is not told others exist). */
  async visibleRow(id: string, principal: Principal): Promise<SubscriptionRow> {
    const row = await this.repo.find(id);
    if (!row || !this.visible(principal, row)) throw notFound(id);
    return row;
  }

  private visible(principal: Principal, s: Pick<SubscriptionRow, 'teams' | 'projects'>): boolean {
    const teamsOk = principal.teams === '*' || (s.teams !== null && s.teams.every((t) => canSeeTeam(principal, t)));
    const projectsOk = principal.projects === '*' || (s.projects !== null && s.projects.every((p) => canSeeProject(principal, p)));
    return teamsOk && projectsOk;
  }

  /** The SSRF guard's verdict before anything is stored (the sender checks again at each connection). */
  private async checkTarget(url: string): Promise<void> {
    const refused = await this.urlGuard.checkUrl(url);
    if (refused) {
      throw new ValidationError('request', [
        { field: 'url', message: `must reach a public address: ${refused} (an operator may allow it with HS_WEBHOOK_ALLOW_PRIVATE or HS_WEBHOOK_ALLOWED_HOSTS)` },
      ]);
    }
  }

  private checkScope(principal: Principal, teams: readonly string[] | null, projects: readonly string[] | null): void {
    if (principal.teams !== '*' && (teams === null || teams.some((t) => !canSeeTeam(principal, t)))) {
      throw new ValidationError('request', [{ field: 'teams', message: 'this token is limited to some teams: name only those' }]);
    }
    if (principal.projects !== '*' && (projects === null || projects.some((p) => !canSeeProject(principal, p)))) {
      throw new ValidationError('request', [{ field: 'projects', message: 'this token is limited to some projects: name only those' }]);
    }
  }
}

const notFound = (id: string) => new HeadspaceError(ErrorCodes.webhookNotFound, `No webhook subscription ${id}`, { field: 'id' });
