import { Inject, Injectable } from '@nestjs/common';
import { HeadspaceError, NotificationErrorCodes } from '@headspace/contracts';
import { APP_CONFIG, SecretBox } from '@headspace/platform';
import type { NotificationsConfig } from '../notifications.config';

/** The associated data of a webhook's sealed secret. */
export const webhookSecretContext = (project: string, webhookId: string) => `webhook:${project}:${webhookId}`;

/** Seals and opens webhook secrets with HS_OPS_SECRET_KEY; every use without the key is a typed 503 naming it. */
@Injectable()
export class NotificationSecrets {
  private readonly box?: SecretBox;

  constructor(@Inject(APP_CONFIG) config: NotificationsConfig) {
    this.box = config.HS_OPS_SECRET_KEY ? SecretBox.fromKey(config.HS_OPS_SECRET_KEY, 'HS_OPS_SECRET_KEY') : undefined;
  }

  seal(project: string, webhookId: string, secret: string, field: string): string {
    return this.required(field).seal(secret, webhookSecretContext(project, webhookId));
  }

  open(project: string, webhookId: string, sealed: string): string {
    return this.required('HS_OPS_SECRET_KEY').open(sealed, webhookSecretContext(project, webhookId));
  }

  private required(field: string): SecretBox {
    if (!this.box) {
      throw new HeadspaceError(NotificationErrorCodes.secretKeyUnavailable, 'HS_OPS_SECRET_KEY is not set on ops-leon: webhook secrets cannot be sealed or opened', { field });
    }
    return this.box;
  }
}
