import { Module } from '@nestjs/common';
import { GovernedModel } from './governed-model';
import { LeonLlmBackend } from './leon-llm-backend';
import { ModelPort } from './model-port';

/** Leon's one way to ask a model (ModelPort), under the cost governor's budgets. */
@Module({
  providers: [LeonLlmBackend, { provide: ModelPort, useClass: GovernedModel }],
  exports: [ModelPort],
})
export class ModelModule {}
