import { type Operation, defineOperation } from '../operations/operation.js';
import { exportCompanyData } from './export-company.js';
import { CompanyExport } from './export.sections.js';

/** `GET {base_url}/export` (gdpr:export): docs/api.md "Company export". */
export const exportOperations: Operation[] = [
  defineOperation({
    name: 'export.company_data',
    summary: 'Every record of the company, audit log included, secrets and key digests excluded (streamed JSON)',
    scope: 'gdpr:export',
    method: 'GET',
    path: '/export',
    mcpTool: 'export_company_data',
    output: CompanyExport,
    example: {},
    handler: async ({ db, ctx, companyId }) => ({
      status: 200,
      body: await exportCompanyData(db, ctx, companyId),
      contentType: 'application/json; charset=utf-8',
    }),
  }),
];
