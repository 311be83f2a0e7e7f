export { checkSpec } from "./check.js";
export { repairCandidate, planRepair, applyRepair } from "./repair.js";
export type { CheckOptions, Issue, Isolation, SpecResult } from "./types.js";
export type { RepairAction, RepairRecord } from "./repair.js";
