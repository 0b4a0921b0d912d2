import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { type AppError, isAppError } from '../../kernel/errors.js';
import { listProductCraFacts } from '../../modules/compliance/product-cra-facts.js';
import { getProductByIdentifier } from '../../modules/products/get-product.js';
import { listProducts } from '../../modules/products/list-products.js';
import { editProduct, registerProduct } from '../../modules/compliance/product-with-facts.js';
import { setProductArchived } from '../../modules/products/manage-products.js';
import { PRODUCTS_PATH, type ProductFormValues, productPage, productPath, productsPage, valuesOf } from './products-page.js';
import { blankAsNull, textField } from '../form-fields.js';
import { fieldSentences } from '../issue-sentences.js';

const FIELDS = ['name', 'identifier', 'producer', 'firmwareVersion', 'category', 'placedOnMarketAt', 'supportEndsAt', 'supportJustification'] as const;
const DONE: Record<string, string> = {
  registered: 'The product was registered: it is in the portal form and the compliance check now.',
  saved: 'The product was saved.',
  archived: 'The product was archived.',
  restored: 'The product was restored.',
};

/** The form as typed, and as the verbs' input: empty optional fields are null, dates are midnight UTC. */
function readForm(body: unknown): { values: ProductFormValues; input: Record<string, unknown> } {
  const b = (body ?? {}) as Record<string, unknown>;
  const values = Object.fromEntries(FIELDS.map((f) => [f, textField(b[f])])) as Required<ProductFormValues>;
  const date = (s: string) => (s.trim() === '' ? null : /^\d{4}-\d{2}-\d{2}$/.test(s.trim()) ? `${s.trim()}T00:00:00Z` : s);
  return {
    values,
    input: {
      name: values.name,
      identifier: values.identifier,
      producer: blankAsNull(values.producer),
      firmwareVersion: blankAsNull(values.firmwareVersion),
      category: values.category || 'default',
      placedOnMarketAt: date(values.placedOnMarketAt),
      supportEndsAt: date(values.supportEndsAt),
      supportJustification: blankAsNull(values.supportJustification),
    },
  };
}

const fieldErrors = (e: AppError): Record<string, string> => {
  const errors: Record<string, string> = {};
  Object.assign(errors, fieldSentences(e.extra.issues ?? [], {}, 'name'));
  if (Object.keys(errors).length === 0) errors.identifier = e.message;
  return errors;
};

/**
 * `/products` and `/products/{identifier}` (inside the dashboard plugin: sign-in, same-origin and
 * CSRF checked first): list, register, edit with the CRA facts, archive and restore. Each change is
 * one verb, one transaction with its audit rows; bad input re-renders the form with its messages.
 */
export function productDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);
  const done = (q: unknown) => {
    const text = DONE[String((q as { done?: unknown } | undefined)?.done ?? '')];
    return text ? { kind: 'ok' as const, text } : undefined;
  };
  const list = async (req: FastifyRequest, extra: Partial<Parameters<typeof productsPage>[0]> = {}) => {
    const companyId = req.session.company.id;
    const [products, facts] = await Promise.all([listProducts(db, companyId), listProductCraFacts(db, companyId)]);
    return productsPage({ session: req.session, products, facts, ...extra });
  };

  app.get(PRODUCTS_PATH, async (req, reply) => send(reply, await list(req, { notice: done(req.query) })));

  app.post(PRODUCTS_PATH, async (req, reply) => {
    const { values, input } = readForm(req.body);
    try {
      const p = await registerProduct(db, ctxOf(req), req.session.company.id, input);
      return reply.redirect(`${productPath(p.identifier)}?done=registered`, 303);
    } catch (e) {
      if (!isAppError(e) || (e.code !== 'VALIDATION' && e.code !== 'CONFLICT')) throw e;
      return send(
        reply,
        await list(req, {
          values,
          errors: fieldErrors(e),
          notice: { kind: 'bad', text: e.code === 'CONFLICT' ? e.message : 'The product was not registered: correct the marked fields.' },
        }),
        e.code === 'CONFLICT' ? 409 : 400,
      );
    }
  });

  const one = async (req: FastifyRequest<{ Params: { identifier: string } }>) => {
    const product = await getProductByIdentifier(db, req.session.company.id, req.params.identifier);
    return { product, facts: (await listProductCraFacts(db, req.session.company.id)).get(product.id) };
  };

  app.get<{ Params: { identifier: string } }>(`${PRODUCTS_PATH}/:identifier`, async (req, reply) => {
    const { product, facts } = await one(req);
    return send(reply, productPage({ session: req.session, product, values: valuesOf(product, facts), notice: done(req.query) }));
  });

  app.post<{ Params: { identifier: string } }>(`${PRODUCTS_PATH}/:identifier`, async (req, reply) => {
    const { values, input } = readForm(req.body);
    const { identifier: _fixed, ...edit } = input;
    try {
      await editProduct(db, ctxOf(req), req.session.company.id, req.params.identifier, edit);
      return reply.redirect(`${productPath(req.params.identifier)}?done=saved`, 303);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
      const { product } = await one(req);
      return send(
        reply,
        productPage({
          session: req.session,
          product,
          values: { ...values, identifier: product.identifier },
          errors: fieldErrors(e),
          notice: { kind: 'bad', text: 'Nothing was saved: correct the marked fields.' },
        }),
        400,
      );
    }
  });

  for (const action of ['archive', 'restore'] as const) {
    app.post<{ Params: { identifier: string } }>(`${PRODUCTS_PATH}/:identifier/${action}`, async (req, reply) => {
      await setProductArchived(db, ctxOf(req), req.session.company.id, req.params.identifier, action === 'archive');
      return reply.redirect(`${productPath(req.params.identifier)}?done=${action === 'archive' ? 'archived' : 'restored'}`, 303);
    });
  }
}
