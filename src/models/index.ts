/**
 * The model layer: model names and providers, the client (retries, timeout, abort, records),
 * usage as reported, prices and cost, budgets. Learners (Evolvers) and actors call models
 * through it.
 */
export { PROVIDERS, PROVIDER_NAMES, parseModelName, resolveModel, type ModelName, type ProviderSpec, type ResolvedModel, type WireProtocol } from "./providers.js";
export { createModelClient, learnerModel, type GenerateRequest, type GenerateResult, type LearnerModel, type LearnerResult, type ModelClient, type ModelClientOptions } from "./client.js";
export { callRecorder, type CallRecord, type CallRecorder, type CallAttempt, type CallStatus } from "./calls.js";
export { costOf, parsePrice, priceOf, priceTable, shippedPrices, worstCaseCost, type Price, type PriceTable } from "./prices.js";
export { Meter, addSpent, budgetsFrom, emptySpent, hasCostLimit, noBudgets, parseLimit, sumSpent, usd, ROLES, type Budgets, type Estimate, type Limits, type Role, type Scope, type Spent } from "./budget.js";
export { TOKEN_FIELDS, cleanTokenUsage, estimateTokens, tokenCount, totalTokens, type TokenField, type TokenUsage } from "./usage.js";
export { usageFromWire } from "./wire-usage.js";
