import { Module } from '@nestjs/common';
import { ShutdownBridge } from './shutdown-bridge.process';

/** Joins the team shutdown protocol and the mailboxes (see ShutdownBridge). */
@Module({ providers: [ShutdownBridge] })
export class ShutdownBridgeModule {}
