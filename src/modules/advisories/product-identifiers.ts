import { gunzipSync } from 'node:zlib';
import { and, desc, eq } from 'drizzle-orm';
import { newPackageUrl, parsePackageUrl } from '../../kernel/package-url.js';
import type { Executor } from '../../db/client.js';
import { type AdvisoryProductRow, products, sbomDocuments, sboms } from '../../db/schema/index.js';
import { readSchema } from '../../kernel/json-schema.js';
import { normaliseCycloneDx } from '../sboms/sboms.normalise-cyclonedx.js';
import { normaliseSpdx } from '../sboms/sboms.normalise-spdx.js';
import { genericPurl, type ProductIdentification } from './csaf.js';

type Subject = { purl: string | null; cpe: string | null };

/** Qualifiers that name one version's artefact (purl specification): dropped when the version changes. */
const VERSIONED_QUALIFIERS = ['checksum', 'download_url', 'file_name', 'vcs_url'];

/**
 * The SBOM subject's purl at the advisory's version: as written when the versions agree, else
 * rebuilt with the other version (type, namespace, name, subpath and lasting qualifiers kept).
 */
function purlAt(purl: string, version: string): string | undefined {
  try {
    const p = parsePackageUrl(purl);
    if (p.version === version) return purl;
    const qualifiers = Object.fromEntries(Object.entries(p.qualifiers ?? {}).filter(([k]) => !VERSIONED_QUALIFIERS.includes(k)));
    return newPackageUrl(p.type, p.namespace, p.name, version, Object.keys(qualifiers).length ? qualifiers : undefined, p.subpath).toString();
  } catch {
    return undefined;
  }
}

const CPE_PATTERN = (() => {
  const schema = readSchema(new URL('../../../src/modules/advisories/schemas/csaf_json_schema.json', import.meta.url)) as {
    $defs: { full_product_name_t: { properties: { product_identification_helper: { properties: { cpe: { pattern: string } } } } } };
  };
  return new RegExp(schema.$defs.full_product_name_t.properties.product_identification_helper.properties.cpe.pattern, 'u');
})();

/**
 * The SBOM subject's CPE at another version: the version field of a CPE 2.3 formatted string
 * (quoted as CPE 2.3 asks) or of a CPE 2.2 URI (percent-encoded). Only a result the CSAF schema
 * accepts is used, so an odd CPE in an SBOM never blocks a release.
 */
function cpeAt(cpe: string, version: string): string | undefined {
  let out: string | undefined;
  if (cpe.startsWith('cpe:2.3:')) {
    const parts = cpe.split(/(?<!\\):/);
    if (parts.length === 13) out = [...parts.slice(0, 5), version.replace(/[^A-Za-z0-9._-]/g, '\\$&'), ...parts.slice(6)].join(':');
  } else if (/^cpe:\//i.test(cpe)) {
    const parts = cpe.split(':');
    if (parts.length >= 4)
      out = [
        ...parts.slice(0, 4),
        encodeURIComponent(version).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
        ...parts.slice(5),
      ].join(':');
  }
  return out !== undefined && CPE_PATTERN.test(out) ? out : undefined;
}

/** Subjects of stored SBOMs by SBOM id: an SBOM version never changes, so neither does its subject. */
const subjects = new Map<string, Subject | null>();
const SUBJECT_CACHE_SIZE = 500;

/** The subject component (purl, CPE) of a registered product's newest SBOM, or null. */
async function latestSubject(db: Executor, companyId: string, identifier: string): Promise<Subject | null> {
  const [latest] = await db
    .select({ id: sboms.id, format: sboms.format })
    .from(sboms)
    .innerJoin(products, eq(products.id, sboms.productId))
    .where(and(eq(sboms.companyId, companyId), eq(products.companyId, companyId), eq(products.identifier, identifier)))
    .orderBy(desc(sboms.version))
    .limit(1);
  if (!latest) return null;
  const known = subjects.get(latest.id);
  if (known !== undefined) return known;
  const [doc] = await db
    .select({ content: sbomDocuments.content })
    .from(sbomDocuments)
    .where(and(eq(sbomDocuments.companyId, companyId), eq(sbomDocuments.sbomId, latest.id)));
  let subject: Subject | null = null;
  if (doc) {
    // Stored only after it passed the format's schema; the normaliser finds the subject as at push.
    const parsed: unknown = JSON.parse(gunzipSync(doc.content).toString('utf8'));
    const s = (latest.format === 'cyclonedx' ? normaliseCycloneDx(parsed) : normaliseSpdx(parsed)).subject;
    subject = s ? { purl: s.purl, cpe: s.cpe } : null;
  }
  if (subjects.size >= SUBJECT_CACHE_SIZE) subjects.delete(subjects.keys().next().value as string);
  subjects.set(latest.id, subject);
  return subject;
}

/**
 * The identification of each product version of an advisory (same order): a registered product
 * takes the purl and CPE of its newest SBOM's subject component (`metadata.component` in
 * CycloneDX, the one described package in SPDX) at the advisory's version; otherwise, or when the
 * SBOM names none, a generic purl from vendor, name and version.
 */
export async function identifyProducts(db: Executor, companyId: string, list: readonly AdvisoryProductRow[]): Promise<ProductIdentification[]> {
  const byIdentifier = new Map<string, Subject | null>();
  for (const id of new Set(list.map((p) => p.productIdentifier).filter((x): x is string => Boolean(x))))
    byIdentifier.set(id, await latestSubject(db, companyId, id));
  return list.map((p) => {
    const subject = p.productIdentifier ? byIdentifier.get(p.productIdentifier) : null;
    const purl = (subject?.purl && purlAt(subject.purl, p.version)) || genericPurl(p.vendor, p.name, p.version);
    const cpe = subject?.cpe ? cpeAt(subject.cpe, p.version) : undefined;
    return cpe ? { purl, cpe } : { purl };
  });
}
