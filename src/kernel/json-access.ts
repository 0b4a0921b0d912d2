/** Tolerant readers for parsed JSON whose shape a schema has already checked (or not at all). */
export const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
