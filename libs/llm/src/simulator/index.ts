export { startSimulator, defaultScenariosDir, extraScenarioDirsFromEnv, type StartSimulatorOptions } from './main';
export {
  listenSimulator,
  SimulatorHandler,
  type RunningSimulator,
  type SimulatorOptions,
  type ScriptedFault,
  type ApiErrorType,
} from './server';
export {
  loadScenarios,
  loadScenarioDirs,
  parseScenario,
  parseScenarioYaml,
  scenarioSchema,
  type Scenario,
  type ScenarioStep,
  type ScenarioBranch,
  type ScenarioReply,
} from './scenario';
export {
  readContext,
  selectScenario,
  pickReply,
  buildMessage,
  streamEvents,
  SIMULATED_LABEL,
  type ConversationContext,
  type PickedReply,
  type SimMessage,
} from './engine';
export { PromptCache, type CacheUsage } from './prompt-cache';
export { parseSimulatedLatency, generationMs, type SimulatedLatency } from './latency';
export { estimateTokens, canonicalJson } from './request';
export { SimulatorBatches, matchBatchRoute, MAX_BATCH_REQUESTS, type BatchResult, type BatchStatus, type MessageBatchJson, type SimulatorBatchesOptions } from './batches';
