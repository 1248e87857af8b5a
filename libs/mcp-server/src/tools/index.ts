import { approvalTools } from './approval.tools';
import { budgetTools } from './budget.tools';
import type { HeadspaceTool } from './headspace-tool';
import { withIdempotencyKey } from './idempotency';
import { mailboxTools } from './mailbox.tools';
import { runTools } from './run.tools';
import { taskTools } from './task.tools';
import { teamTools } from './team.tools';

/** Every tool Headspace serves over MCP, each one REST call; every write tool takes an `idempotency_key`. */
export const headspaceTools: readonly HeadspaceTool[] = [...teamTools, ...taskTools, ...mailboxTools, ...approvalTools, ...budgetTools, ...runTools].map(withIdempotencyKey);

export type { ApiRequest, HeadspaceTool } from './headspace-tool';
