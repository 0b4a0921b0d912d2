export const Severity = { critical: 'critical', high: 'high', medium: 'medium', low: 'low', info: 'info' } as const;
export type Severity = (typeof Severity)[keyof typeof Severity];
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

export type Level = 'error' | 'warning' | 'note' | 'none';
const LEVELS = new Set(['error', 'warning', 'note', 'none']);

/**
 * SARIF §3.27.10: an absent `level` takes the rule's `defaultConfiguration.level`, else "warning".
 */
export function resolveLevel(resultLevel: unknown, ruleDefault: unknown): Level {
  if (typeof resultLevel === 'string' && LEVELS.has(resultLevel)) return resultLevel as Level;
  if (typeof ruleDefault === 'string' && LEVELS.has(ruleDefault)) return ruleDefault as Level;
  return 'warning';
}

/** `security-severity` (GitHub's convention, a CVSS-like 0.0-10.0 string or number), or null. */
export function parseSecuritySeverity(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 10 ? n : null;
}

/**
 * The security severity wins when present (CVSS v3 rating bands: 9.0 critical, 7.0 high, 4.0
 * medium, 0.1 low); without it the level decides: error high, warning medium, note low.
 */
export function severityOf(level: Level, securitySeverity: number | null): Severity {
  if (securitySeverity !== null) {
    if (securitySeverity >= 9) return 'critical';
    if (securitySeverity >= 7) return 'high';
    if (securitySeverity >= 4) return 'medium';
    if (securitySeverity >= 0.1) return 'low';
    return 'info';
  }
  return level === 'error' ? 'high' : level === 'warning' ? 'medium' : level === 'note' ? 'low' : 'info';
}
