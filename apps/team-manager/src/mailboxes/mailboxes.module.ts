import { Module } from '@nestjs/common';

/** Mailboxes: commands, queries and projections of this feature (see its folder). */
@Module({})
export class MailboxesModule {}
