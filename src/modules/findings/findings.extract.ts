import { createHash } from 'node:crypto';
import { arr, obj, str } from '../../kernel/json-access.js';
import { artifactOf, runRoots } from './findings.artifact.js';
import { type Level, parseSecuritySeverity, resolveLevel, type Severity, severityOf } from './findings.severity.js';

export type ExtractedFinding = {
  tool: string;
  ruleId: string;
  fingerprint: string;
  severity: Severity;
  level: Level;
  securitySeverity: string | null;
  message: string;
  artifactUri: string | null;
  startLine: number | null;
};

export type ExtractOptions = {
  /** The directory the analysed code was checked out in, to make absolute file URIs relative. */
  sourceRoot?: string;
};

/** `artifactsCapped`: findings whose artifact path was cut to ARTIFACT_MAX_LENGTH / ARTIFACT_MAX_DEPTH. */
export type Extracted = { resultCount: number; artifactsCapped: number; byTool: Map<string, ExtractedFinding[]> };

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** The stored length of a finding's message; expansion stops there. */
export const MESSAGE_MAX = 4000;
/** One placeholder's argument is cut to this before it is put in. */
const ARGUMENT_MAX = 1000;

/**
 * Fills `{n}` placeholders from `args`, building at most MESSAGE_MAX characters. Unbounded, a rule
 * text of 100,000 `{0}` with a 1,000-character argument is 100 MB per result: a 355 KB log once
 * exhausted the heap (issue 24). The result is the full expansion, each argument cut to ARGUMENT_MAX,
 * cut to MESSAGE_MAX.
 */
export function expandMessage(text: string, args: readonly unknown[]): string {
  const re = /\{(\d+)\}/g;
  let out = '';
  let last = 0;
  for (let m = re.exec(text); m !== null && out.length < MESSAGE_MAX; m = re.exec(text)) {
    out += text.slice(last, m.index);
    const arg = args[Number(m[1])];
    out += arg === undefined ? m[0] : String(arg).slice(0, ARGUMENT_MAX);
    last = re.lastIndex;
  }
  if (out.length < MESSAGE_MAX) out += text.slice(last, last + MESSAGE_MAX);
  return out.slice(0, MESSAGE_MAX);
}

/** Message text, with `{0}` placeholders of a rule message string filled from its arguments. */
function messageOf(result: Record<string, unknown>, rule: Record<string, unknown>): string {
  const m = obj(result.message);
  const text = str(m.text) ?? str(m.markdown) ?? (str(m.id) ? str(obj(obj(rule.messageStrings)[m.id as string]).text) : null) ?? '';
  return expandMessage(text, arr(m.arguments));
}

/** A result is suppressed unless every suppression on it was rejected or is still under review. */
const suppressed = (r: Record<string, unknown>): boolean =>
  arr(r.suppressions).some((s) => {
    const status = str(obj(s).status);
    return status === null || status === 'accepted';
  });

function ruleFor(result: Record<string, unknown>, run: Record<string, unknown>, byId: Map<string, Record<string, unknown>>): Record<string, unknown> {
  const tool = obj(run.tool);
  const driverRules = arr(obj(tool.driver).rules);
  const ref = obj(result.rule);
  const component = obj(ref.toolComponent);
  if (typeof component.index === 'number' && typeof ref.index === 'number') {
    return obj(arr(obj(arr(tool.extensions)[component.index]).rules)[ref.index]);
  }
  const index = typeof result.ruleIndex === 'number' ? result.ruleIndex : typeof ref.index === 'number' ? ref.index : -1;
  if (index >= 0 && driverRules[index] !== undefined) return obj(driverRules[index]);
  return byId.get(str(result.ruleId) ?? str(ref.id) ?? '') ?? {};
}

/**
 * The findings of a (schema-valid) SARIF 2.1.0 log, grouped by tool. Only `kind: fail` results
 * (the default) that are not suppressed become findings. The fingerprint is SHA-256 over tool,
 * rule, artifact and the result's partialFingerprints (else its fingerprints, else its message
 * and snippet): never a line number, so code moving within a file keeps its findings. Identical
 * results in one file are told apart by their order of appearance (#2, #3, ...).
 */
export function extractFindings(doc: unknown, opts: ExtractOptions = {}): Extracted {
  let resultCount = 0;
  let artifactsCapped = 0;
  const byTool = new Map<string, ExtractedFinding[]>();
  for (const item of arr(obj(doc).runs)) {
    const run = obj(item);
    const tool = str(obj(obj(run.tool).driver).name) ?? '(unnamed tool)';
    const byId = new Map<string, Record<string, unknown>>();
    for (const r of arr(obj(obj(run.tool).driver).rules)) {
      const id = str(obj(r).id);
      if (id && !byId.has(id)) byId.set(id, obj(r));
    }
    const roots = runRoots(run, opts.sourceRoot);
    const list = byTool.get(tool) ?? [];
    byTool.set(tool, list);
    for (const entry of arr(run.results)) {
      resultCount++;
      const r = obj(entry);
      if ((str(r.kind) ?? 'fail') !== 'fail' || suppressed(r) || str(r.baselineState) === 'absent') continue;
      const rule = ruleFor(r, run, byId);
      const ruleId = str(r.ruleId) ?? str(obj(r.rule).id) ?? str(rule.id) ?? '(no rule)';
      const level = resolveLevel(r.level, obj(rule.defaultConfiguration).level);
      const secRaw = obj(r.properties)['security-severity'] ?? obj(rule.properties)['security-severity'];
      const secNum = parseSecuritySeverity(secRaw);
      const message = messageOf(r, rule);
      const artifact = artifactOf(r, run, roots);
      const artifactUri = artifact.path;
      if (artifact.capped) artifactsCapped++;
      const region = obj(obj(obj(arr(r.locations)[0]).physicalLocation).region);
      const partial = Object.entries(obj(r.partialFingerprints));
      const full = Object.entries(obj(r.fingerprints));
      const identity =
        partial.length > 0
          ? partial
          : full.length > 0
            ? full
            : [
                ['message', message.replace(/\s+/g, ' ').trim()],
                ['snippet', (str(obj(region.snippet).text) ?? '').trim()],
              ];
      const discriminator = identity
        .map(([k, v]) => `${k}=${String(v)}`)
        .sort()
        .join('\u0001');
      list.push({
        tool,
        ruleId,
        fingerprint: sha([tool, ruleId, artifactUri ?? '', discriminator].join('\u0000')),
        severity: severityOf(level, secNum),
        level,
        securitySeverity: secNum === null ? null : String(secNum),
        message,
        artifactUri,
        startLine: typeof region.startLine === 'number' ? region.startLine : null,
      });
    }
  }
  for (const list of byTool.values()) disambiguate(list);
  return { resultCount, artifactsCapped, byTool };
}

/** Gives the 2nd, 3rd... result with the same fingerprint a distinct one, in line order. */
function disambiguate(list: ExtractedFinding[]): void {
  const groups = new Map<string, ExtractedFinding[]>();
  for (const f of list) {
    const g = groups.get(f.fingerprint);
    if (g) g.push(f);
    else groups.set(f.fingerprint, [f]);
  }
  for (const [fp, g] of groups) {
    if (g.length < 2) continue;
    g.sort((a, b) => (a.startLine ?? 0) - (b.startLine ?? 0));
    g.forEach((f, i) => {
      if (i > 0) f.fingerprint = sha(`${fp}#${i + 1}`);
    });
  }
}
