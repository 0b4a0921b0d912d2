import { createHash } from 'node:crypto';

/**
 * The CSAF 2.0 provider layout of one company portal (CSAF 2.0 section 7): provider metadata,
 * one folder per year of the initial release, `index.txt` and `changes.csv` in the distribution
 * folder, and SHA-256/SHA-512 files beside each document. TLP:CLEAR documents live under `clear/`:
 * CSAF 2.0 leaves the directory name to the provider (the provider metadata's `directory_url`
 * points at it), and `clear` is the TLP 2.0 name CSAF 2.1 uses, so the URLs survive an upgrade.
 * Inside the documents the label stays WHITE, the only one the CSAF 2.0 schema knows.
 */
export const DISTRIBUTION_FOLDER = 'clear';

/** The provider's URLs below a portal: the `.well-known/csaf` root and the TLP:CLEAR folder. */
export function csafUrls(portal: string): { wellKnown: string; distribution: string } {
  const wellKnown = `${portal}/.well-known/csaf`;
  return { wellKnown, distribution: `${wellKnown}/${DISTRIBUTION_FOLDER}` };
}

/** CSAF 2.0 section 5.1: lower-case tracking id, every character outside [+\-a-z0-9] becomes `_`. */
export const csafFileName = (trackingId: string): string => `${trackingId.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_')}.json`;

export type PublishedDoc = { trackingId: string; initialReleaseDate: Date; currentReleaseDate: Date };

/** Path of a document below the distribution folder: `{year of initial release}/{file name}`. */
export const csafPath = (d: Pick<PublishedDoc, 'trackingId' | 'initialReleaseDate'>): string =>
  `${d.initialReleaseDate.getUTCFullYear()}/${csafFileName(d.trackingId)}`;

export function providerMetadata(o: {
  wellKnownUrl: string;
  publisher: { name: string; namespace: string; contactDetails?: string | null };
  lastUpdated: Date;
}): Record<string, unknown> {
  return {
    canonical_url: `${o.wellKnownUrl}/provider-metadata.json`,
    distributions: [{ directory_url: `${o.wellKnownUrl}/${DISTRIBUTION_FOLDER}/` }],
    last_updated: o.lastUpdated.toISOString(),
    list_on_CSAF_aggregators: true,
    metadata_version: '2.0',
    mirror_on_CSAF_aggregators: true,
    publisher: {
      category: 'vendor',
      name: o.publisher.name,
      namespace: o.publisher.namespace,
      ...(o.publisher.contactDetails ? { contact_details: o.publisher.contactDetails } : {}),
    },
    role: 'csaf_provider',
  };
}

/** `index.txt`: every document path, one per line. */
export const indexTxt = (docs: readonly PublishedDoc[]): string => docs.map((d) => `${csafPath(d)}\n`).join('');

/** One link of a directory listing: the name shown and the path below the distribution folder. */
export type ListingEntry = { name: string; path: string };

/**
 * The entries of a distribution folder's directory listing (CSAF 2.0 requirement 14): the folder
 * itself holds `changes.csv`, `index.txt` and one folder per year of initial release (`2026/`); a
 * year folder holds its documents, each followed by its hash files. `undefined`: no such folder.
 */
export function folderListing(docs: readonly PublishedDoc[], year?: string): ListingEntry[] | undefined {
  if (year === undefined) {
    const years = [...new Set(docs.map((d) => String(d.initialReleaseDate.getUTCFullYear())))].sort();
    return [...['changes.csv', 'index.txt'].map((name) => ({ name, path: name })), ...years.map((y) => ({ name: `${y}/`, path: `${y}/` }))];
  }
  const paths = docs
    .map(csafPath)
    .filter((p) => p.startsWith(`${year}/`))
    .sort();
  if (paths.length === 0) return undefined;
  return paths.flatMap((p) => ['', '.sha256', '.sha512'].map((ext) => ({ name: `${p.slice(year.length + 1)}${ext}`, path: `${p}${ext}` })));
}

/** `changes.csv`: `"path","current release date"`, newest first (CSAF 2.0 requirement 10). */
export const changesCsv = (docs: readonly PublishedDoc[]): string =>
  [...docs]
    .sort((a, b) => b.currentReleaseDate.getTime() - a.currentReleaseDate.getTime())
    .map((d) => `"${csafPath(d)}","${d.currentReleaseDate.toISOString()}"\n`)
    .join('');

/** The `.sha256` / `.sha512` file body: `<hex>  <file name>` as sha256sum prints it. */
export function hashFile(algorithm: 'sha256' | 'sha512', bytes: string, fileName: string): string {
  return `${createHash(algorithm).update(bytes, 'utf8').digest('hex')}  ${fileName}\n`;
}
