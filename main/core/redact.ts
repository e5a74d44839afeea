import { PREVIEW_MAX, preview } from './format.js';

/**
 * Masks what looks like a secret in text the dashboard shows of a tool call (its arguments and the
 * start of its result, kept in the activity log): a command line with `Authorization: Bearer …`,
 * `export GITHUB_TOKEN=…`, `--password=…`, a well-known API-key shape, a long random string, and the
 * hub's own secrets by value. What is masked becomes `***`; the rest stays readable.
 */
export const MASK = '***';

/** `Bearer <credential>` (and Basic/Token schemes): the scheme stays, the credential goes. */
const SCHEME = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})/gi;

/**
 * `<name> = <value>` or `<name>: <value>` (shell, env files, JSON, YAML, URLs' query strings) where the
 * name says it holds a secret. The separator may carry JSON's quotes, escaped or not.
 */
const NAMED = /([A-Za-z0-9_.-]*(?:token|secret|passw(?:or)?d|passwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|authorization|cookie|session[_-]?id)[A-Za-z0-9_.-]*)((?:\\?["'])?\s*[:=]\s*(?:\\?["'])?)((?!\*\*\*|(?:Bearer|Basic|Token)\s)[^\s"'\\,;&}\]]+)/gi;

/** Shapes that are secrets whatever surrounds them: vendor key prefixes, JWTs, private key blocks. */
const SHAPES = new RegExp(
  [
    String.raw`\b(?:sk|pk|rk)-(?:[A-Za-z0-9_]+-)?[A-Za-z0-9_-]{16,}`,
    String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
    String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
    String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
    String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`,
    String.raw`\bnpm_[A-Za-z0-9]{30,}`,
    String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
    String.raw`\bAIza[0-9A-Za-z_-]{30,}`,
    String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+`,
    String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`,
  ].join('|'),
  'g',
);

/** 32 or more characters of base64/base64url: masked when they mix upper case, lower case and digits (random, not a hash or a word). */
const LONG = /[A-Za-z0-9_+-]{32,}={0,2}/g;

function looksRandom(s: string): boolean {
  return /[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `text` with secrets masked; `known` are exact values to mask wherever they appear (the hub's token, API keys). */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const k of known) {
    if (k.length >= 8 && out.includes(k)) out = out.replace(new RegExp(escapeRegExp(k), 'g'), MASK);
  }
  out = out.replace(SHAPES, MASK);
  out = out.replace(SCHEME, (_m, scheme: string, space: string) => `${scheme}${space}${MASK}`);
  out = out.replace(NAMED, (_m, name: string, sep: string) => `${name}${sep}${MASK}`);
  return out.replace(LONG, (m) => (looksRandom(m) ? MASK : m));
}

/** A preview (format.ts) of `text` with its secrets masked; a secret across the cut is masked whole before the cut. */
export function secretPreview(text: string, known: readonly string[], max = PREVIEW_MAX): string {
  return preview(redactSecrets(text.length > max + 256 ? text.slice(0, max + 256) : text, known), max);
}
