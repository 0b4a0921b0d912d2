import type { TaskOutput } from '../../kernel/worker-task.js';
import { similarities } from './text-similarity.js';

/**
 * Built-in AI triage: offline rules and text similarity, no network. It only suggests; a person
 * accepts or dismisses each suggestion. The report text is hostile input and is only matched
 * against, never executed or echoed into markup here.
 */
export type TriageInput = { description: string; stepsToReproduce?: string | null; impact?: string | null; productName?: string | null };
export type Level = 'low' | 'medium' | 'high' | 'critical';
export type TriageSuggestions = {
  source: 'built-in';
  vulnerabilityType: { value: string; confidence: number; matched: string[] } | null;
  severity: { level: Level; reason: string };
  duplicates: { reportId: string; similarity: number }[];
  spam: { likelihood: number; signals: string[] };
  summary: string;
};

/** Keyword evidence per vulnerability type (values of the report schema's enumeration). */
const TYPE_RULES: Record<string, RegExp[]> = {
  memory_corruption: [
    /buffer overflow/,
    /out[- ]of[- ]bounds/,
    /use[- ]after[- ]free/,
    /heap (overflow|corruption)/,
    /stack (overflow|smash)/,
    /integer overflow/,
    /double free/,
    /segfault|sigsegv/,
  ],
  injection: [
    /sql injection|sqli\b/,
    /command injection/,
    /\bos command/,
    /template injection|ssti\b/,
    /deseriali[sz]ation/,
    /code injection/,
    /union select/,
    /; ?(ls|id|whoami)\b/,
  ],
  cross_site_scripting: [/cross[- ]site scripting|\bxss\b/, /<script/, /onerror=|onload=/, /javascript:/],
  authentication_bypass: [
    /authentication bypass|bypass (the )?(login|authentication)/,
    /\bauth(entication)? bypass/,
    /session (fixation|hijack)/,
    /without (a )?password/,
    /forged? (session|cookie|token)/,
    /brute[- ]?force/,
  ],
  access_control: [
    /privilege escalation/,
    /\bidor\b|insecure direct object/,
    /missing authori[sz]ation/,
    /access (other|another) (user|customer|tenant)/,
    /horizontal|vertical escalation/,
  ],
  hardcoded_credentials: [/hard[- ]?coded (password|credential|key|secret)/, /default (password|credential|account)/, /backdoor account/, /admin:admin/],
  cryptographic_weakness: [
    /weak (encryption|cipher|crypto|hash)/,
    /\bmd5\b|\bsha-?1\b|\bdes\b|\brc4\b/,
    /predictable (random|nonce|iv|token)/,
    /certificate (validation|verification)/,
    /plaintext (password|credential)/,
  ],
  information_disclosure: [
    /information disclosure|info(rmation)? leak/,
    /exposes? (personal|sensitive|internal)/,
    /directory listing/,
    /stack trace/,
    /\bpii\b/,
  ],
  denial_of_service: [
    /denial[- ]of[- ]service|\bdos\b/,
    /\b(crash|crashes|crashed|hangs|freezes|reboots?)\b/,
    /resource exhaustion/,
    /infinite loop/,
    /(keeps?|stays?) (the device |it )?offline/,
  ],
  request_forgery: [/\bcsrf\b|cross[- ]site request forgery/, /\bssrf\b|server[- ]side request forgery/],
  insecure_update: [
    /unsigned (firmware|update)/,
    /(firmware|update)[^.]{0,40}over (plain )?http\b/,
    /without (any )?(signature|integrity) (check|verification)/,
    /downgrade attack/,
    /modified firmware/,
  ],
  insecure_configuration: [/debug (mode|interface|endpoint) (enabled|exposed|left)/, /telnet (enabled|open)/, /open (port|service)/, /insecure default/],
  vulnerable_component: [/cve-\d{4}-\d{4,}/, /outdated (library|component|openssl|busybox|kernel)/, /known[- ]vulnerable/],
  physical_hardware: [/\bjtag\b|\buart\b|\bswd\b/, /side[- ]channel/, /fault injection|glitch/, /physical access/],
};

const CRITICAL = /remote code execution|\brce\b|arbitrary code|root shell|full (device )?takeover|wormable/;
const HIGH_TYPES = new Set(['injection', 'authentication_bypass', 'access_control', 'hardcoded_credentials', 'memory_corruption', 'insecure_update']);
const MEDIUM_TYPES = new Set([
  'cross_site_scripting',
  'information_disclosure',
  'request_forgery',
  'cryptographic_weakness',
  'vulnerable_component',
  'insecure_configuration',
]);

function suggestType(text: string): TriageSuggestions['vulnerabilityType'] {
  let best: { value: string; matched: string[] } | null = null;
  for (const [value, rules] of Object.entries(TYPE_RULES)) {
    const matched = rules.filter((r) => r.test(text)).map((r) => r.source);
    if (matched.length > 0 && (!best || matched.length > best.matched.length)) best = { value, matched };
  }
  return best ? { ...best, confidence: Math.min(0.95, 0.5 + 0.15 * best.matched.length) } : null;
}

function estimateSeverity(text: string, type: string | undefined): TriageSuggestions['severity'] {
  const remote = /unauthenticated|without authentication|remote(ly)?|over the (network|internet)|pre-?auth/.test(text);
  const local = /physical access|local (user|access)|requires? (admin|root)|authenticated (admin|user)/.test(text);
  if (CRITICAL.test(text)) return { level: remote || !local ? 'critical' : 'high', reason: 'describes code execution or a full takeover' };
  if (type && HIGH_TYPES.has(type))
    return { level: remote ? 'high' : local ? 'medium' : 'high', reason: `${type.replaceAll('_', ' ')}${remote ? ', reachable without authentication' : ''}` };
  if (type && MEDIUM_TYPES.has(type)) return { level: local ? 'low' : 'medium', reason: type.replaceAll('_', ' ') };
  if (type === 'denial_of_service') return { level: remote ? 'medium' : 'low', reason: 'availability impact only' };
  return { level: 'medium', reason: 'not enough detail to estimate; assumed medium until triaged' };
}

const PROMO = /\b(casino|viagra|cialis|porn|crypto ?currency|bitcoin|forex|loan|seo services|backlinks?|buy now|discount|click here|follow me)\b/g;
const TECH =
  /\b(request|response|header|parameter|endpoint|firmware|version|payload|exploit|http|api|port|login|password|token|cookie|crash|overflow|injection|script|curl|poc)\b/;

function spamLikelihood(text: string, raw: string): TriageSuggestions['spam'] {
  const signals: string[] = [];
  const urls = (raw.match(/https?:\/\//g) ?? []).length;
  const words = raw.split(/\s+/).filter(Boolean).length;
  if (raw.trim().length < 40) signals.push('very short description');
  if (urls >= 3 && urls * 8 > words) signals.push('mostly links');
  const promo = text.match(PROMO) ?? [];
  if (promo.length > 0) signals.push(`promotional words: ${[...new Set(promo)].join(', ')}`);
  if (!TECH.test(text)) signals.push('no technical detail');
  const letters = raw.replace(/[^A-Za-z]/g, '');
  if (letters.length > 30 && letters.replace(/[^A-Z]/g, '').length / letters.length > 0.7) signals.push('shouting (mostly capitals)');
  if (/(.)\1{9,}/.test(raw)) signals.push('repeated characters');
  const weight = signals.reduce((s, x) => s + (x.startsWith('promotional') || x === 'mostly links' ? 0.45 : 0.2), 0);
  return { likelihood: Math.min(1, Math.round(weight * 100) / 100), signals };
}

function summarise(input: TriageInput, type: string | undefined): string {
  const first = input.description
    .replace(/\s+/g, ' ')
    .trim()
    .split(/(?<=[.!?])\s/)
    .slice(0, 2)
    .join(' ');
  const clipped = first.length > 280 ? `${first.slice(0, 277)}...` : first;
  const what = type ? type.replaceAll('_', ' ') : 'a vulnerability';
  return `Reported ${what}${input.productName ? ` in ${input.productName}` : ''}: ${clipped}`;
}

/**
 * Suggestions for one report. `earlier` are the company's other reports (id and text); those at
 * least 0.45 similar are flagged as likely duplicates, most similar first.
 */
export function builtInTriage(input: TriageInput, earlier: readonly { id: string; text: string }[]): TriageSuggestions {
  const raw = [input.description, input.stepsToReproduce, input.impact].filter(Boolean).join('\n');
  const text = raw.toLowerCase();
  const type = suggestType(text);
  return {
    source: 'built-in',
    vulnerabilityType: type,
    severity: estimateSeverity(text, type?.value),
    duplicates: similarities(raw, earlier)
      .filter((s) => s.similarity >= 0.45)
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, 5)
      .map((s) => ({ reportId: s.id, similarity: Math.round(s.similarity * 100) / 100 })),
    spam: spamLikelihood(text, raw),
    summary: summarise(input, type?.value),
  };
}

/**
 * builtInTriage as a task of the offload pool (src/kernel/worker-pool.ts): against the window of
 * 500 earlier reports, clipped, it is still 50-200 ms of CPU, which the event loop does not spend.
 */
export function builtInTriageTask(x: { input: TriageInput; earlier: { id: string; text: string }[] }): TaskOutput<TriageSuggestions> {
  return { value: builtInTriage(x.input, x.earlier) };
}
