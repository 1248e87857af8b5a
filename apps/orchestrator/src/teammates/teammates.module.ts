import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { TeammateEndReports } from './teammate-end-reports.process';
import { TeammateSessions } from './teammate-sessions.service';
import { TeammateSessionsConsumer } from './teammate-sessions.consumer';

/**
 * Live teammates (seed 003 Req 6, seed 004 F5): `spawn-teammate` in the team-manager starts a real
 * session here, the teammate's termination (shutdown approved, went idle during a shutdown, forced,
 * timed out) stops it and gives its file locks back, and a session that ends by itself announces
 * the teammate's completion and reports it idle.
 */
@Module({
  imports: [SessionsModule],
  controllers: [TeammateSessionsConsumer],
  providers: [TeammateSessions, TeammateEndReports],
  exports: [TeammateSessions],
})
export class TeammatesModule {}
