import { context, createContextKey, type Attributes, type Context } from '@opentelemetry/api';

/**
 * Who is calling the model. A session sets these once around its turns; the LLM client copies them
 * onto every `chat` span and GenAI metric it makes beneath, so the client needs no knowledge of
 * personas, runs or conversations.
 */
export interface GenAiAgentAttributes {
  'gen_ai.agent.name'?: string;
  'gen_ai.agent.id'?: string;
  'gen_ai.conversation.id'?: string;
  'headspace.persona'?: string;
  'headspace.team'?: string;
  'headspace.run_id'?: string;
  'headspace.task_id'?: string;
  'headspace.session_id'?: string;
}

const AGENT_KEY = createContextKey('headspace.genai.agent');

/** Runs fn with the agent's attributes in the active context (merged over any already there). */
export function withAgentAttributes<T>(attributes: GenAiAgentAttributes, fn: () => T): T {
  const merged = { ...agentAttributes(), ...attributes };
  return context.with(context.active().setValue(AGENT_KEY, merged), fn);
}

/** The agent attributes of ctx (default: the active context); empty outside a session. */
export function agentAttributes(ctx: Context = context.active()): GenAiAgentAttributes & Attributes {
  return (ctx.getValue(AGENT_KEY) as (GenAiAgentAttributes & Attributes) | undefined) ?? {};
}
