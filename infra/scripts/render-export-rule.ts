/**
 * The gateway's rule for "this answer is a file", generated from the service's own negotiation
 * (`shared/http/negotiate.ts`): a request is an export unless its `Accept` selects JSON (a header
 * with anything but tab and printable ASCII counts as an export: never under-counted). The policy
 * expression (C#, run by API Management only) repeats the negotiation step by step — the same
 * media-range and q-value patterns, the most specific range deciding each offer's q, JSON first
 * and winning ties, the offers of each operation — and answers the export key (the subscription
 * and client) or "" for JSON. `npm run infra:gateway` writes it into infra/policies/summary-api.xml;
 * test/infra/export-rule.test.ts checks the file holds it and that the rule, mirrored in
 * TypeScript, agrees with the negotiation on every Accept header it is given.
 */
import { MEDIA_RANGE_PATTERN, QUALITY_PATTERN } from '../../shared/http/negotiate.js';
import { exportMediaTypes, mediaTypeOf, operationNames } from '../../shared/model/operation-contract.js';
import type { ResourceDefinition } from '../../shared/model/resource-definition.js';
import { RESOURCES } from '../../shared/model/resources.js';

/** The policy file and the variable whose value the rule is. */
export const POLICY_PATH = 'infra/policies/summary-api.xml';
export const EXPORT_KEY_VARIABLE = 'exportKey';

/** A character outside tab and printable ASCII: the rule counts such a header as an export. */
export const NOT_PRINTABLE_ASCII = /[^\t\x20-\x7E]/;

/** A C# string literal. */
const csharp = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** What each operation offers, JSON first (its URL template → media types), as the service offers them. */
export function operationOffers(resources: readonly ResourceDefinition[] = RESOURCES): Map<string, string[]> {
  return new Map(resources.map((resource) => [operationNames(resource).path, [mediaTypeOf('json'), ...exportMediaTypes(resource)]]));
}

/** The policy expression: the export key for an export, "" when the Accept header selects JSON. */
export function renderExportRule(resources: readonly ResourceDefinition[] = RESOURCES): string {
  const offers = [...operationOffers(resources)];
  // An operation not listed (none today) is treated as offering every export type: never under-counted.
  const everything = [...new Set(offers.flatMap(([, types]) => types))];
  const list = (types: readonly string[]) => `new string[] { ${types.map(csharp).join(', ')} }`;
  const choice = offers.map(([template, types]) => `context.Operation.UrlTemplate == ${csharp(template)} ? ${list(types)} : `).join('') + list(everything);
  return [
    '@{',
    'string accept = context.Request.Headers.GetValueOrDefault("Accept", "");',
    `string[] offers = ${choice};`,
    // Outside printable ASCII the two languages' case folding and trimming differ: count it as an export.
    `if (System.Text.RegularExpressions.Regex.IsMatch(accept, ${csharp(NOT_PRINTABLE_ASCII.source)})) { return (string)context.Variables["client"]; }`,
    'if (accept.Trim(\' \', \'\\t\') == "") { return ""; }',
    'int[] q = new int[offers.Length];',
    'int[] rank = new int[offers.Length];',
    'for (int i = 0; i < offers.Length; i++) { rank[i] = -1; }',
    'foreach (string part in accept.Split(\',\')) {',
    'string[] pieces = part.Split(\';\');',
    `System.Text.RegularExpressions.Match range = System.Text.RegularExpressions.Regex.Match(pieces[0].Trim(\' \', \'\\t\'), ${csharp(MEDIA_RANGE_PATTERN.source)}, System.Text.RegularExpressions.RegexOptions.IgnoreCase | System.Text.RegularExpressions.RegexOptions.CultureInvariant);`,
    'if (!range.Success) { continue; }',
    'string type = range.Groups[1].Value.ToLowerInvariant();',
    'string subtype = range.Groups[2].Value.ToLowerInvariant();',
    // q in thousandths: the pattern allows only 0, 0., 0.d, 0.dd, 0.ddd, 1, 1., 1.0, 1.00, 1.000
    // (CultureInfo, which double.Parse would need, is not allowed in policy expressions).
    'int rangeQ = 1000;',
    'for (int p = 1; p < pieces.Length; p++) {',
    'string[] pair = pieces[p].Split(\'=\');',
    'if (pair[0].Trim(\' \', \'\\t\').ToLowerInvariant() == "q") {',
    'string value = pair.Length > 1 ? pair[1].Trim(\' \', \'\\t\') : "";',
    `rangeQ = !System.Text.RegularExpressions.Regex.IsMatch(value, ${csharp(QUALITY_PATTERN.source)}) ? 0 : (value[0] == '1' ? 1000 : (value.Length > 2 ? int.Parse(value.Substring(2).PadRight(3, '0')) : 0));`,
    '}',
    '}',
    'int specificity = type == "*" ? 0 : (subtype == "*" ? 1 : 2);',
    'for (int i = 0; i < offers.Length; i++) {',
    'string[] offer = offers[i].Split(\'/\');',
    'if ((type == "*" || type == offer[0]) && (subtype == "*" || subtype == offer[1]) && specificity > rank[i]) { rank[i] = specificity; q[i] = rangeQ; }',
    '}',
    '}',
    'int chosen = -1;',
    'for (int i = 0; i < offers.Length; i++) { if (q[i] > 0 && (chosen < 0 || q[i] > q[chosen])) { chosen = i; } }',
    `return chosen == 0 ? "" : (string)context.Variables["client"];`,
    '}',
  ].join(' ');
}

/** Escapes text for an XML attribute in double quotes. */
export function xmlAttribute(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The policy document with the export rule written into the exportKey variable. */
export function withExportRule(policy: string, rule = renderExportRule()): string {
  const pattern = new RegExp(`(<set-variable name="${EXPORT_KEY_VARIABLE}" value=")[^"]*("\\s*/>)`);
  if (!pattern.test(policy)) throw new Error(`no <set-variable name="${EXPORT_KEY_VARIABLE}" value="…" /> in ${POLICY_PATH}`);
  return policy.replace(pattern, (_match, before: string, after: string) => `${before}${xmlAttribute(rule)}${after}`);
}
