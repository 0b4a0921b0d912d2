import type * as Calculator from 'ae-cvss-calculator';
import { validation } from '../../kernel/errors.js';
import { requireOnFirstUse } from '../../kernel/on-first-use.js';

// Loaded by the first vector scored, not at start (ADR 0027): 1.2 MiB of heap an idle server never uses.
const calculator = requireOnFirstUse<typeof Calculator>('ae-cvss-calculator');

export const CVSS_SEVERITIES = ['none', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof CVSS_SEVERITIES)[number];
export type CvssScore = { version: '3.1' | '4.0'; vector: string; baseScore: number; severity: Severity };

/** FIRST's qualitative rating scale (the same bands for 3.1 and 4.0). */
export function severityOf(score: number): Severity {
  if (score === 0) return 'none';
  if (score < 4) return 'low';
  if (score < 7) return 'medium';
  if (score < 9) return 'high';
  return 'critical';
}

const BASE = {
  '3.1': ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'],
  '4.0': ['AV', 'AC', 'AT', 'PR', 'UI', 'VC', 'VI', 'VA', 'SC', 'SI', 'SA'],
} as const;

/**
 * Scores a CVSS 3.1 or 4.0 vector with the maintained calculator (ae-cvss-calculator). Every base
 * metric must be present and defined: the calculator would otherwise score a partial vector as 0,
 * which would quietly rank a critical report as harmless. Returns the calculator's normalised vector.
 */
export function scoreCvss(vector: string): CvssScore {
  const bad = (why: string) => validation(`cvssVector: ${why}`, [{ path: 'cvssVector', message: why }]);
  const m = /^CVSS:(3\.1|4\.0)\/(.+)$/.exec(vector.trim());
  if (!m) throw bad('expected a CVSS 3.1 or 4.0 vector starting with "CVSS:3.1/" or "CVSS:4.0/"');
  const version = m[1] as '3.1' | '4.0';
  const metrics = new Map<string, string>();
  for (const part of (m[2] as string).split('/')) {
    const [k, v, ...rest] = part.split(':');
    if (!k || !v || rest.length > 0) throw bad(`malformed metric "${part}"`);
    if (metrics.has(k)) throw bad(`metric ${k} appears twice`);
    metrics.set(k, v);
  }
  const missing = BASE[version].filter((k) => !metrics.has(k) || metrics.get(k) === 'X');
  if (missing.length > 0) throw bad(`missing base metrics: ${missing.join(', ')}`);
  const { Cvss3P1, Cvss4P0 } = calculator();
  let calc;
  try {
    calc = version === '3.1' ? new Cvss3P1(vector.trim()) : new Cvss4P0(vector.trim());
  } catch (e) {
    throw bad((e as Error).message);
  }
  const base = Number(calc.calculateScores().base);
  if (!Number.isFinite(base)) throw bad('the vector could not be scored');
  return { version, vector: calc.toString(), baseScore: base, severity: severityOf(base) };
}
