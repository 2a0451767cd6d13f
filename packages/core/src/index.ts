// biome-ignore-all assist/source/organizeImports: the public API is grouped by concept, not sorted.
/**
 * @proxy/core's library API, grouped by concept: what a program that teaches a text-only model tool
 * calling needs (the conversation and tool model, the parser and formats, tool policy, prompt
 * rendering, validation, output limits, errors). What a gateway that serves turns needs besides
 * (runTurn, the backend port, stores, admission) is `@proxy/core/gateway` (src/gateway.ts).
 * Everything else under src/ is internal; docs/core.md lists both entries' names and a test keeps
 * them in step. Add a name only when a package outside core needs it.
 */

// The conversation a surface decodes its wire into, and the tools offered with it.
export type {
  ContentPart,
  ConversationItem,
  MessageRole,
  ReasoningEffort,
  ReasoningSummary,
  TurnRequest,
} from "./model/conversation.js";
export {
  type CustomToolGrammar,
  type JsonSchema,
  TOOL_NAME_PATTERN,
  type ToolChoice,
  type ToolPolicy,
  type ToolSpec,
} from "./model/tool-spec.js";
export { findToolPolicyProblem, type ToolPolicyProblem } from "./model/check-tool-policy.js";
export { customCallArguments, customCallInput } from "./model/custom-call.js";
export type { HostedTools, HostedWebSearch, WebSearchAction } from "./model/hosted-tools.js";
export { type CitedLink, citedLinks, citedPages } from "./model/cited-links.js";
export { createSchemaCache, type SchemaCache } from "./tools/index.js";
// The one event vocabulary a turn yields (BackendEvent, in ./gateway, and ParserEvent are its other views).
export type {
  AssistantEvent,
  CallRef,
  StreamEvent,
  StreamEventFields,
  StreamEventType,
  ToolCall,
} from "./events/stream-event.js";
export type { Finish, FinishReason } from "./model/finish-reason.js";
export { addUsage, type Usage } from "./model/usage.js";
// Errors: one closed set of kinds; each surface maps them to its own status and body.
export {
  contextOverflow,
  GatewayError,
  type GatewayErrorKind,
  type GatewayErrorOptions,
  invalidRequest,
  INPUT_TOO_LONG,
  isGatewayError,
  MODEL_NOT_FOUND,
  modelNotFound,
  refusesModel,
  toGatewayError,
  withInputTokens,
} from "./errors/gateway-error.js";
export { formatParamPath } from "./errors/param-path.js";
export { withoutSecrets, withoutUrls } from "./errors/scrub-text.js";
// What rendering produces: the request a text backend is sent.
export type {
  BackendRequest,
  NativeToolCall,
  PromptMessage,
} from "./ports/text-backend.js";
// Teach a text-only model a block format, parse its text into calls, validate them, cap its output.
// runTurn (./gateway) composes these; a library user may use them alone.
export { callableTools, forcedName, mustCall, offeredTools } from "./model/tool-policy.js";
// runTurn's tool policy without its backend port, for an engine that makes its own model calls
// (the AI SDK middleware): the call gate over parser events, the sink that runs it with the output
// guard, and the corrective request that re-asks once.
export { type CallGate, createCallGate, type GateResult, type Violation } from "./turn/call-gate.js";
export { AttemptPipeline, type Halt } from "./turn/attempt-pipeline.js";
export { correctiveRequest } from "./turn/native-turn.js";
export type { BlockFormat } from "./parser/block-format.js";
export {
  BLOCK_FORMATS,
  blockFormatFor,
  blockFormatsReading,
  CUSTOM_TOOL_RAW_FORMAT,
  JSON_TOOL_CALL_FORMAT,
  type JsonBlockFormatOptions,
  jsonBlockFormat,
  USE_TOOL_XML_FORMAT,
} from "./formats/index.js";
export { manifestRules, renderToolManifest } from "./prompt/render-manifest.js";
export type { PromptTexts } from "./prompt/prompt-texts.js";
export {
  type PromptOptions,
  type RenderedPrompt,
  renderBackendRequest,
  renderToolResult,
} from "./prompt/render-history.js";
export { asNativeFunction } from "./prompt/render-native.js";
export { renderUseToolXml } from "./prompt/use-tool-xml.js";
export {
  createSentinelParser,
  DEFAULT_MAX_BLOCK_BYTES,
  type SentinelParserOptions,
} from "./parser/sentinel-parser.js";
export type {
  ArgumentsValidator,
  ParserEvent,
  ParserSink,
  RejectReason,
  SentinelParser,
} from "./parser/parser-types.js";
export { createArgumentsValidator, type ToolArgumentsValidator } from "./tools/index.js";
export {
  createOutputGuard,
  type GuardResult,
  type OutputGuard,
  type OutputGuardOptions,
} from "./output/output-guard.js";
export {
  type BudgetScan,
  createOutputTokenBudget,
  type OutputTokenBudget,
} from "./output/output-token-budget.js";
export {
  createStopSequenceMatcher,
  type StopScan,
  type StopSequenceMatcher,
} from "./output/stop-sequences.js";
export {
  countTokens,
  countTokensPausing,
  EXACT_COUNT_CHARS,
  estimateTokens,
  TOKEN_PIECE_CHARS,
  tokenPrefix,
} from "./tokens/token-counter.js";
// Ids for calls and items, and the tokenizer port output limits count through.
export {
  createCountingIdGenerator,
  createRandomIdGenerator,
  type IdGenerator,
  type IdPrefix,
} from "./ports/id-generator.js";
export type { TokenEncoding } from "./ports/token-encoding.js";
