import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, notificationSettingsStreamId, opsProjectStreamId, setNotificationSettings } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { notificationSettingsDecider } from '../notification-settings.decider';
import { NotificationSecrets } from '../shared/notification-secrets';
import { settingsView } from '../shared/settings-view';

/**
 * `set-notification-settings`: replaces a project's webhooks and email. New secrets are sealed here
 * (the decider stays pure: sealing draws a random IV) and never leave this handler in the clear.
 */
@Controller()
export class SetNotificationSettingsHandler {
  constructor(
    private readonly store: EventStore,
    private readonly secrets: NotificationSecrets,
  ) {}

  @MessagePattern(setNotificationSettings)
  async handle(@Payload() request: z.output<typeof setNotificationSettings.request>, @Ctx() ctx: RequestContext) {
    const webhooks = request.webhooks.map(({ secret, ...webhook }, i) => ({
      ...webhook,
      ...(secret ? { sealedSecret: this.secrets.seal(request.project, webhook.id, secret, `webhooks.${i}.secret`) } : {}),
    }));
    const outcome = await handleCommand(
      this.store,
      notificationSettingsDecider,
      notificationSettingsStreamId(request.project),
      { type: 'set-settings', project: request.project, webhooks, email: request.email, setBy: request.setBy, now: new Date().toISOString() },
      ctx,
      {
        before: async () => {
          if ((await this.store.streamVersion(opsProjectStreamId(request.project))) === null) {
            throw new HeadspaceError(ErrorCodes.opsProjectNotFound, `No project "${request.project}"`, { field: 'project' });
          }
        },
      },
    );
    if (!outcome.state.exists) throw new Error('settings missing after set-settings');
    return settingsView(outcome.state, outcome.streamVersion);
  }
}
