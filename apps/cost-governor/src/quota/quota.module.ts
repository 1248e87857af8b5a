import { Module } from '@nestjs/common';
import { GetQuotaHandler } from './get-quota/get-quota.handler';
import { RecordRateLimitHandler } from './record-rate-limit/record-rate-limit.handler';
import { SetQuotaHandler } from './set-quota/set-quota.handler';

/** Unified quota: weekly limits per project, rate-limit status from the SDK, consumption and run rate. */
@Module({ controllers: [SetQuotaHandler, RecordRateLimitHandler, GetQuotaHandler] })
export class QuotaModule {}
