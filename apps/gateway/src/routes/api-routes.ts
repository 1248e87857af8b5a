import type { ApiRoute } from './api-route';
import { agentRoutes } from './agent.routes';
import { approvalRoutes } from './approval.routes';
import { askRoutes } from './ask.routes';
import { batchRoutes } from './batch.routes';
import { evalRoutes } from './eval.routes';
import { learningRoutes } from './learning.routes';
import { loopRoutes } from './loop.routes';
import { costRoutes } from './cost.routes';
import { fileLockRoutes } from './file-lock.routes';
import { mailboxRoutes } from './mailbox.routes';
import { inboxListRoutes } from './inbox-list.routes';
import { opsNotificationRoutes } from './ops-notification.routes';
import { manifestRoutes } from './manifest.routes';
import { mcpToolsRoutes } from './mcp-tools.routes';
import { memberRoutes } from './member.routes';
import { opsRoutes } from './ops.routes';
import { personaRoutes } from './persona.routes';
import { runRoutes } from './run.routes';
import { runDiffRoutes } from './run-diff.routes';
import { taskRoutes } from './task.routes';
import { teamRoutes } from './team.routes';
import { tokenRoutes } from './token.routes';
import { webhookRoutes } from '../webhooks/webhook.routes';
import { whoamiRoutes } from './whoami.routes';
import { boardRoutes } from './board.routes';
import { skillRoutes } from './skill.routes';
import { pluginRoutes } from './plugin.routes';
import { workflowRoutes } from './workflow.routes';
import { requestRoutes } from './request.routes';
import { skillRegistryRoutes } from './skill-registry.routes';

/** Every REST operation of the gateway. Routing, auth, OpenAPI and the fuzz test all read this. */
export const apiRoutes: ApiRoute[] = [
  ...teamRoutes,
  ...memberRoutes,
  ...personaRoutes,
  ...manifestRoutes,
  ...taskRoutes,
  ...mailboxRoutes,
  ...inboxListRoutes,
  ...fileLockRoutes,
  ...approvalRoutes,
  ...costRoutes,
  ...runRoutes,
  ...runDiffRoutes,
  ...askRoutes,
  ...batchRoutes,
  ...learningRoutes,
  ...loopRoutes,
  ...evalRoutes,
  ...mcpToolsRoutes,
  ...agentRoutes,
  ...skillRoutes,
  ...tokenRoutes,
  ...opsRoutes,
  ...opsNotificationRoutes,
  ...webhookRoutes,
  ...whoamiRoutes,
  ...boardRoutes,
  ...pluginRoutes,
  ...workflowRoutes,
  ...requestRoutes,
  ...skillRegistryRoutes,
];
