import { type Operation, defineOperation } from '../operations/operation.js';
import { getPortalSettings, updatePortalSettings } from './portal-settings.js';
import { PortalSettings, PortalSettingsInput } from './portal-settings.schemas.js';

/** The portal and disclosure-policy settings (issue 20): read with `read`, change with `portal:write`. */
export const portalSettingsOperations: Operation[] = [
  defineOperation({
    name: 'portal_settings.get',
    access: 'read-admin',
    summary: 'The portal and disclosure-policy settings: policy, safe harbour, languages, contact, OpenPGP key (with its fingerprint), response times',
    scope: 'read',
    method: 'GET',
    path: '/portal-settings',
    mcpTool: 'get_portal_settings',
    output: PortalSettings,
    example: {},
    handler: async ({ db, config, companyId }) => ({ status: 200, body: await getPortalSettings(db, config, companyId) }),
  }),
  defineOperation({
    name: 'portal_settings.update',
    summary:
      'Change the portal and disclosure-policy settings (omitted fields keep their value; null clears one); the portal and security.txt show them at once',
    mcpDescription:
      'Change the public portal settings: disclosure policy (Markdown, no HTML) or its https URL, safe-harbour statement, languages, security contact e-mail, OpenPGP public key (checked: not private, expired or revoked), expected response times. Omitted fields keep their value; null clears one. Invalid input changes nothing.',
    scope: 'portal:write',
    method: 'PATCH',
    path: '/portal-settings',
    mcpTool: 'update_portal_settings',
    mcpAnnotations: { idempotentHint: true },
    input: PortalSettingsInput,
    output: PortalSettings,
    example: {
      body: {
        securityEmail: 'psirt@acme.example',
        policyUrl: 'https://acme.example/security/cvd-policy',
        languages: ['en', 'de'],
        responseTimes: { acknowledgeDays: 3 },
      },
    },
    handler: async ({ db, config, ctx, companyId }, body) => ({ status: 200, body: await updatePortalSettings(db, config, ctx, companyId, body) }),
  }),
];
