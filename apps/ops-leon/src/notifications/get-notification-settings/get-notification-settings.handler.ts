import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { getNotificationSettings, HeadspaceError, NotificationErrorCodes, notificationSettingsStreamId } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { notificationSettingsDecider, type NotificationSettingsEvent } from '../notification-settings.decider';
import { settingsView } from '../shared/settings-view';

/** `get-notification-settings`: folded from the project's settings stream (a handful of events), secrets left out. */
@Controller()
export class GetNotificationSettingsHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(getNotificationSettings)
  async handle(@Payload() request: z.output<typeof getNotificationSettings.request>) {
    const { state, version } = await this.store.aggregate(
      notificationSettingsStreamId(request.project),
      (s, e) => notificationSettingsDecider.evolve(s, e as unknown as NotificationSettingsEvent),
      notificationSettingsDecider.initialState(),
    );
    if (!state.exists) {
      throw new HeadspaceError(NotificationErrorCodes.settingsNotFound, `No notification settings for project "${request.project}"`, { field: 'project' });
    }
    return settingsView(state, version);
  }
}
