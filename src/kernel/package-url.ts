// packageurl-js on first use (src/kernel/on-first-use.ts): besides its own code, the library makes
// an `Intl.Collator` as it loads, which maps ICU's collation data (about 2 MiB of the node binary's
// pages) into every idle server that never parses a purl (ADR 0027).
import type * as PackageUrlLibrary from 'packageurl-js';
import type { PackageURL } from 'packageurl-js';
import { requireOnFirstUse } from './on-first-use.js';

const library = requireOnFirstUse<typeof PackageUrlLibrary>('packageurl-js');

/** `PackageURL.fromString`: throws on a string that is not a package URL. */
export const parsePackageUrl = (purl: string): PackageURL => library().PackageURL.fromString(purl);

/** `new PackageURL(...)`: throws on components a package URL cannot have. */
export const newPackageUrl = (...args: ConstructorParameters<typeof PackageURL>): PackageURL => new (library().PackageURL)(...args);
