import { complianceOperations } from '../modules/compliance/compliance.operations.js';
import { caseOperations } from '../modules/cases/cases.operations.js';
import { messageOperations } from '../modules/messages/messages.operations.js';
import { knownVulnOperations } from '../modules/known-vulns/known-vulns.operations.js';
import { findingOperations } from '../modules/findings/findings.operations.js';
import { exportOperations } from '../modules/export/export.operations.js';
import { advisoryOperations } from '../modules/advisories/advisories.operations.js';
import { portalSettingsOperations } from '../modules/companies/portal-settings.operations.js';
import { productOperations } from '../modules/products/products.operations.js';
import { reportOperations } from '../modules/reports/reports.operations.js';
import { triageOperations } from '../modules/triage/triage.operations.js';
import { article14Operations } from '../modules/article14/article14.operations.js';
import { inboxOperations } from '../modules/article14/inbox.operations.js';
import { sbomOperations } from '../modules/sboms/sboms.operations.js';
import { upstreamOperations } from '../modules/upstream/upstream.operations.js';
import { webhookOperations } from '../modules/webhooks/webhooks.operations.js';
import { retentionOperations } from '../modules/retention/retention.operations.js';
import type { Operation } from '../modules/operations/operation.js';

/** Every `{base_url}` operation. The REST, MCP and OpenAPI issues add theirs here. */
export const API_OPERATIONS: readonly Operation[] = [
  ...productOperations,
  ...reportOperations,
  ...triageOperations,
  ...article14Operations,
  ...inboxOperations,
  ...webhookOperations,
  ...complianceOperations,
  ...messageOperations,
  ...sbomOperations,
  ...findingOperations,
  ...exportOperations,
  ...advisoryOperations,
  ...knownVulnOperations,
  ...portalSettingsOperations,
  ...upstreamOperations,
  ...retentionOperations,
  ...caseOperations,
];
