// The registry of conformance checks, one module per requirement area.

import type { Check } from '../check.js';
import { applyChecks } from './jobs-apply.js';
import { jobsAuthChecks } from './jobs-auth.js';
import { marketChecks } from './jobs-market.js';
import { rateChecks } from './jobs-rate.js';
import { searchChecks } from './jobs-search.js';
import { tierChecks } from './jobs-tiers.js';
import { anonAndDiscoveryChecks } from './mcp-anon.js';
import { keyedMcpChecks } from './mcp-keyed.js';
import { toolChecks } from './mcp-tools.js';
import { auditChecks } from './screening-audit.js';
import { authChecks } from './screening-auth.js';
import { idempotencyChecks } from './screening-idempotency.js';
import { ledgerChecks } from './screening-ledger.js';
import { statefulChecks } from './screening-stateful.js';
import { submitChecks } from './screening-submit.js';
import { usageChecks } from './screening-usage.js';
import { screeningPolicyChecks } from './screening-policy.js';
import { spentChecks } from './screening-spent.js';
import { webhookChecks } from './screening-webhooks.js';

export const allChecks: readonly Check[] = [
  ...authChecks,
  ...submitChecks,
  ...idempotencyChecks,
  ...usageChecks,
  ...spentChecks,
  ...auditChecks,
  ...ledgerChecks,
  ...webhookChecks,
  ...statefulChecks,
  ...screeningPolicyChecks,
  ...jobsAuthChecks,
  ...searchChecks,
  ...tierChecks,
  ...applyChecks,
  ...marketChecks,
  ...rateChecks,
  ...keyedMcpChecks,
  ...toolChecks,
  ...anonAndDiscoveryChecks,
];
