import { ERROR_CODES } from '../shared/errors/error-codes.js';
import type { JsonObject } from './json-schema.js';
import { BEARER_HEADER } from './security-schemes.js';

/**
 * The tables a reader of the API reference looks for first, in Markdown for `info.description`:
 * the three credentials (from the security schemes) and every error code (from the registry).
 */
export function referenceTables(schemes: Record<string, JsonObject>): string {
  const credentials = Object.entries(schemes).map(([name, scheme]) => {
    const sentAs = scheme.type === 'apiKey' ? `\`${String(scheme.name)}\` header` : `\`${BEARER_HEADER}\``;
    // The description's first sentence, without the "sent as" the column already says.
    const what = String(scheme.description).split('. ')[0]!.replace(`, sent as \`${BEARER_HEADER}\``, '').replace(/\.$/, '');
    return `| \`${name}\` | ${sentAs} | ${what}. |`;
  });
  const errors = Object.entries(ERROR_CODES).map(([code, { status, title }]) => `| \`${code}\` | ${status} | ${title} |`);
  return [
    '## Credentials', '', 'Every call sends all three.', '', '| scheme | sent as | what it is |', '|---|---|---|', ...credentials, '',
    '## Errors', '', 'The `code` of the problem document, its HTTP status and title.', '', '| code | status | title |', '|---|---|---|', ...errors,
  ].join('\n');
}
