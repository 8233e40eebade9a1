/**
 * Kling wire types. The task and envelope shapes are shared with the /videoalt surface, which
 * speaks Kling natively, so they live in protocols/kling-video; this file adds the upstream-only facts.
 */
export type { KlingCapability, KlingCreateBody, KlingEnvelope, KlingTask, KlingTaskStatus, KlingVideoRequest } from '../../protocols/kling-video/types.js';

/** Business codes of error responses (kling.md "Error codes"), grouped by what they mean for us. */
export const KLING_AUTH_CODES = [1000, 1001, 1002, 1003, 1004] as const;
/** Account state: arrears, empty resource pack, no access, IP whitelist — the operator's problem. */
export const KLING_ACCOUNT_CODES = [1100, 1101, 1102, 1103, 1304] as const;
export const KLING_BAD_REQUEST_CODES = [1200, 1201, 1202, 1203] as const;
export const KLING_POLICY_CODES = [1300, 1301] as const;
export const KLING_RATE_CODES = [1302, 1303] as const;
