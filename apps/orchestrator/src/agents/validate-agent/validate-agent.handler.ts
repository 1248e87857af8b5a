import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { validateAgent } from '@headspace/contracts';
import type { z } from 'zod';
import { validateAgentText } from '../agent-listing';

/** `hs.qry.orchestrator.validate-agent`: one file's text → the errors (file, field) and warnings it would load with. */
@Controller()
export class ValidateAgentHandler {
  @MessagePattern(validateAgent)
  handle(request: z.output<typeof validateAgent.request>) {
    return validateAgentText(request);
  }
}
