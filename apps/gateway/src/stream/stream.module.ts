import { Module } from '@nestjs/common';
import { StreamController } from './stream.controller';
import { StreamHub } from './stream-hub';
import { STREAM_CONFIG, streamConfigFromEnv } from './stream.config';

/** The live event stream (SSE) of every service's JetStream events. */
@Module({
  controllers: [StreamController],
  providers: [{ provide: STREAM_CONFIG, useFactory: () => streamConfigFromEnv() }, StreamHub],
  exports: [StreamHub],
})
export class StreamModule {}
