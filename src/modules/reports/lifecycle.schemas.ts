import { z } from 'zod';
import { REPORT_STATES } from './lifecycle.js';

/** The 27 EU Member States (ISO 3166-1 alpha-2; Greece is GR here, not the EU's EL). */
export const EU_MEMBER_STATES = [
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
] as const;

const Instant = z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time with a time zone, e.g. 2026-11-22T10:00:00Z' });

/** PATCH `{base_url}/vulnerabilities/{id}` (docs/workflow.md "Lifecycle"); every field optional. */
export const UpdateReportInput = z
  .object({
    status: z.enum(REPORT_STATES).optional().meta({ description: "Target state; only the lifecycle's transitions are allowed." }),
    cvssVector: z
      .string()
      .max(200)
      .nullable()
      .optional()
      .meta({ description: 'CVSS 3.1 or 4.0 vector; the score and severity are computed.', example: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }),
    cwe: z
      .string()
      .regex(/^CWE-\d{1,5}$/, 'expected a CWE id such as CWE-79')
      .nullable()
      .optional(),
    componentPurl: z
      .string()
      .trim()
      .max(512)
      .regex(/^pkg:[a-z][a-z0-9.+-]*\/\S+$/, 'expected a package URL such as pkg:npm/lodash@4.17.20')
      .nullable()
      .optional()
      .meta({
        description: "The third-party component the flaw lies in: its maintainer must be told (CRA Article 13(6)); null when it is the company's own code.",
        example: 'pkg:github/lwip-tcpip/lwip@2.1.3',
      }),
    duplicateOf: z.uuid().nullable().optional().meta({ description: 'The original report, when closing as duplicate.' }),
    assigneeId: z
      .uuid()
      .nullable()
      .optional()
      .meta({ description: 'The member who handles the report (a user id of this company; 404 otherwise); null to unassign.' }),
    activelyExploited: z.boolean().nullable().optional().meta({ description: 'Reliable evidence of exploitation by a malicious actor (Art. 3(42)).' }),
    exploitationEvidence: z.string().max(10_000).nullable().optional(),
    awareAt: Instant.nullable().optional().meta({ description: 'When the company became aware of the exploitation or incident.' }),
    severeIncident: z.boolean().nullable().optional(),
    fixAvailableAt: Instant.nullable().optional().meta({ description: 'When a corrective or mitigating measure became available.' }),
    memberStates: z
      .array(z.enum(EU_MEMBER_STATES, { error: 'expected an EU Member State code (ISO 3166-1 alpha-2)' }))
      .max(27)
      .optional(),
  })
  .strict()
  .meta({ id: 'UpdateReportInput' });
export type UpdateReportInput = z.infer<typeof UpdateReportInput>;
