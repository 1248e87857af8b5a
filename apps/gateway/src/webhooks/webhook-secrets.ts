import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { APP_CONFIG, SecretBox } from '@headspace/platform';
import type { WebhooksConfig } from './webhooks.config';

/** The associated data of a subscription's sealed secret: a sealed secret copied onto another subscription does not open. */
export const subscriptionSecretContext = (subscriptionId: string) => `webhook-subscription:${subscriptionId}`;

/** Seals and opens subscription secrets with HS_WEBHOOK_SECRET_KEY; every use without the key is a typed 503 naming it. */
@Injectable()
export class WebhookSecrets {
  private readonly box?: SecretBox;

  constructor(@Inject(APP_CONFIG) config: WebhooksConfig) {
    this.box = config.HS_WEBHOOK_SECRET_KEY ? SecretBox.fromKey(config.HS_WEBHOOK_SECRET_KEY, 'HS_WEBHOOK_SECRET_KEY') : undefined;
  }

  /** A secret for a subscription created without one (shown once). */
  generate(): string {
    return `whsec_${randomBytes(32).toString('base64url')}`;
  }

  seal(subscriptionId: string, secret: string): string {
    return this.required().seal(secret, subscriptionSecretContext(subscriptionId));
  }

  open(subscriptionId: string, sealed: string): string {
    return this.required().open(sealed, subscriptionSecretContext(subscriptionId));
  }

  private required(): SecretBox {
    if (!this.box) {
      throw new HeadspaceError(ErrorCodes.webhookSecretKeyUnavailable, 'HS_WEBHOOK_SECRET_KEY is not set on the gateway: webhook secrets cannot be sealed or opened', {
        field: 'HS_WEBHOOK_SECRET_KEY',
      });
    }
    return this.box;
  }
}
