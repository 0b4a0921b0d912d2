// The package ships no types; this is the whole of its public surface.
declare module 'ajv-formats-draft2019' {
  import type { Ajv } from 'ajv';
  export default function addFormats2019(ajv: Ajv, options?: { formats?: string[] }): Ajv;
}
