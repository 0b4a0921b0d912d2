import { uuidV5 } from '../../kernel/uuid5.js';
import { CATALOG_VERSION, GROUPS, type GroupId, REQUIREMENTS } from './catalog.js';

/** OSCAL version we emit; every field used is also valid in OSCAL 1.2.x. */
export const OSCAL_VERSION = '1.0.6';

/**
 * The requirement catalog as an OSCAL catalog: one group per Annex part or Article, one control per
 * requirement with its legal reference (label), statement and how Cradle evaluates it (guidance).
 * UUIDs are derived from the catalog version, so the same catalog always has the same ids.
 */
export function oscalCatalog(lastModified: Date): Record<string, unknown> {
  const groups = (Object.keys(GROUPS) as GroupId[]).map((g) => ({
    id: g,
    title: GROUPS[g],
    controls: REQUIREMENTS.filter((r) => r.group === g).map((r) => ({
      id: r.id,
      class: 'cra-requirement',
      title: r.title,
      props: [
        { name: 'label', value: r.reference },
        { name: 'method', ns: 'urn:cradle:oscal', value: r.evaluation },
      ],
      parts: [
        { id: `${r.id}_smt`, name: 'statement', prose: `${r.title} (Regulation (EU) 2024/2847, ${r.reference}).` },
        { id: `${r.id}_gdn`, name: 'guidance', prose: `Evidence: ${r.evidence}. To close a gap: ${r.action}` },
      ],
    })),
  }));
  return {
    catalog: {
      uuid: uuidV5(`catalog:${CATALOG_VERSION}`),
      metadata: {
        title: 'Cyber Resilience Act requirements (Cradle catalog)',
        'last-modified': lastModified.toISOString(),
        version: CATALOG_VERSION,
        'oscal-version': OSCAL_VERSION,
        remarks: 'Requirements of Regulation (EU) 2024/2847 paraphrased by Cradle; the Official Journal text is binding.',
      },
      groups,
    },
  };
}
