import type { FastifyInstance } from 'fastify';
import { AppError, ErrorCode } from '../kernel/errors.js';
import type { Company } from '../modules/companies/companies.schemas.js';
import { findCompanyBySlug } from '../modules/companies/get-company.js';
import { html } from './html.js';
import { page } from './layout.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The company whose portal this request addresses (zone `portal` only). */
    portalCompany: Company;
  }
}

/** Portal pages (zone `portal`): one company's public face at `{slug}.{site host}`. */
export async function portalRoutes(app: FastifyInstance): Promise<void> {
  const { config, database } = app.deps;
  app.decorateRequest('portalCompany', null as unknown as Company);
  app.addHook('onRequest', async (req) => {
    const zone = req.zone;
    const company = zone.kind === 'portal' ? await findCompanyBySlug(database.db, zone.slug) : undefined;
    if (!company) throw new AppError(ErrorCode.NOT_FOUND, `no portal exists at ${req.hostname}; check the address`);
    req.portalCompany = company;
  });

  app.get('/', async (req, reply) => {
    const c = req.portalCompany;
    return reply.type('text/html; charset=utf-8').send(
      page({
        title: `Report a vulnerability to ${c.name}`,
        brand: c.name,
        lang: c.languages[0] ?? 'en',
        body: html`<h1>Report a security vulnerability to ${c.name}</h1>
${c.policyText ? html`<h2>Disclosure policy</h2><pre>${c.policyText}</pre>` : ''}
${c.policyUrl ? html`<p>Disclosure policy: <a href="${c.policyUrl}" rel="noopener noreferrer">${c.policyUrl}</a></p>` : ''}
${c.securityEmail ? html`<p>Security contact: <a href="mailto:${c.securityEmail}">${c.securityEmail}</a></p>` : ''}
<p class="hint">Portal of ${config.publicUrl.host}.</p>`,
      }),
    );
  });
}
