import { Module } from '@nestjs/common';
import { GetRequestHandler } from './get-request/get-request.handler';
import { StartRequestHandler } from './start-request/start-request.handler';

/** Topology choice (issue 24 scope 1): a request run as one agent or as the agent team, chosen from its TaskSignals (ADR 0050). */
@Module({ controllers: [StartRequestHandler, GetRequestHandler] })
export class TopologyModule {}
