/**
 * Issue 20 part 5, "compliance tells the truth from the first minute": what a company must have
 * before any product can be judged. Per-product verdicts need products; a company with none would
 * otherwise get no verdict at all (a score of 100 and "nothing left to do"). With no (active)
 * product, the requirements that are about the company rather than a product are judged once,
 * with no product, beside a setup gap for the missing products. With products, those requirements
 * are judged per product as before, so no verdict is counted twice.
 */
export const COMPANY_LEVEL_REQUIREMENTS = [
  'cra-ai-p2-2',
  'cra-ai-p2-5',
  'cra-ai-p2-6',
  'cra-art13-17-contact',
  'cra-art14-reporting',
  'cra-aii-2-contact',
] as const;

/**
 * Not a CRA requirement (the catalog and its OSCAL form stay as published): the precondition of
 * all the product requirements, Art. 13(1) with Annex I. Its id says it is Cradle's.
 */
export const PRODUCTS_REGISTERED = {
  id: 'cradle-products-registered',
  title: 'Products with digital elements registered for assessment',
  reference: 'Article 13(1), Annex I (precondition)',
  action: 'Register your first product: its name, identifier and CRA facts (category, support period).',
} as const;

/**
 * The dashboard page where a person closes an open requirement (site-relative), so each gap's
 * action is one click from the page that fixes it. `identifier`: the product the gap is about.
 */
export function actionPath(requirementId: string, identifier: string | null): string {
  const product = identifier ? `/products/${encodeURIComponent(identifier)}` : '/products';
  switch (requirementId) {
    case PRODUCTS_REGISTERED.id:
      return '/products#register';
    case 'cra-ai-p2-5':
    case 'cra-ai-p2-6':
    case 'cra-art13-17-contact':
    case 'cra-aii-2-contact':
      return '/settings/portal';
    case 'cra-art13-8-support':
    case 'cra-aii-7-support-end':
      return product;
    case 'cra-ai-p2-2':
      return '/reports?tab=new';
    case 'cra-art14-reporting':
      return '/reports?tab=deadlines';
    case 'cra-ai-p1-2a':
      return '/reports';
    case 'cra-ai-p2-1':
    case 'cra-art13-5-components':
      return identifier ? `/evidence/sboms?product=${encodeURIComponent(identifier)}` : '/evidence';
    case 'cra-ai-p2-3':
      return identifier ? `/evidence/findings?product=${encodeURIComponent(identifier)}` : '/evidence';
    case 'cra-ai-p2-4':
      return '/advisories';
    default:
      return identifier ? `/compliance?product=${encodeURIComponent(identifier)}#attest` : '/compliance';
  }
}
