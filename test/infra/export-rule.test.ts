/**
 * The gateway's export rule (infra/scripts/render-export-rule.ts) against the service's negotiation.
 * The policy's C# runs only in API Management, so `gatewayRule` below repeats it statement by
 * statement in TypeScript (Split, Trim(' ', '\t'), Regex.Match, ToLowerInvariant, int.Parse as .NET
 * has them for ASCII text), and that mirror is held to `negotiateOffer` on every Accept header given:
 * equal on printable ASCII, and never calling JSON what the service answers as a file otherwise.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MEDIA_RANGE_PATTERN, QUALITY_PATTERN, negotiateOffer, resourceOffers } from '../../shared/http/negotiate.js';
import { operationNames } from '../../shared/model/operation-contract.js';
import { RESOURCES } from '../../shared/model/resources.js';
import { EXPORT_KEY_VARIABLE, NOT_PRINTABLE_ASCII, POLICY_PATH, operationOffers, renderExportRule, withExportRule } from '../../infra/scripts/render-export-rule.js';
import { ROOT } from './bicep-tree.js';
import { findAll, parsePolicy } from './policy-xml.js';

/** .NET's String.Trim(' ', '\t'). */
const trim = (text: string) => text.replace(/^[ \t]+|[ \t]+$/g, '');

/** The C# of renderExportRule, statement by statement: true when the request is an export. */
function gatewayRule(accept: string, offers: readonly string[]): boolean {
  if (NOT_PRINTABLE_ASCII.test(accept)) return true;
  if (trim(accept) === '') return false;
  const q = offers.map(() => 0);
  const rank = offers.map(() => -1);
  for (const part of accept.split(',')) {
    const pieces = part.split(';');
    const range = new RegExp(MEDIA_RANGE_PATTERN.source, 'i').exec(trim(pieces[0]!));
    if (range === null) continue;
    const type = range[1]!.toLowerCase();
    const subtype = range[2]!.toLowerCase();
    let rangeQ = 1000;
    for (let p = 1; p < pieces.length; p++) {
      const pair = pieces[p]!.split('=');
      if (trim(pair[0]!).toLowerCase() === 'q') {
        const value = pair.length > 1 ? trim(pair[1]!) : '';
        rangeQ = !new RegExp(QUALITY_PATTERN.source).test(value) ? 0 : value[0] === '1' ? 1000 : value.length > 2 ? Number.parseInt(value.slice(2).padEnd(3, '0'), 10) : 0;
      }
    }
    const specificity = type === '*' ? 0 : subtype === '*' ? 1 : 2;
    offers.forEach((offer, i) => {
      const [offerType, offerSubtype] = offer.split('/');
      if ((type === '*' || type === offerType) && (subtype === '*' || subtype === offerSubtype) && specificity > rank[i]!) {
        rank[i] = specificity;
        q[i] = rangeQ;
      }
    });
  }
  let chosen = -1;
  offers.forEach((_offer, i) => {
    if (q[i]! > 0 && (chosen < 0 || q[i]! > q[chosen]!)) chosen = i;
  });
  return chosen !== 0;
}

/** The service: an export unless the negotiation answers JSON (a 406 is no JSON either). */
const serviceExports = (accept: string, resource: (typeof RESOURCES)[number]) => negotiateOffer(accept, resourceOffers(resource))?.format !== 'json';

const policy = readFileSync(join(ROOT, POLICY_PATH), 'utf8');

describe('the gateway\'s export rule', () => {
  it('is what npm run infra:gateway writes into the API policy (regenerate after changing the negotiation)', () => {
    const variable = findAll(parsePolicy(policy), 'set-variable').find((element) => element.attributes.name === EXPORT_KEY_VARIABLE);
    expect(variable?.attributes.value).toBe(renderExportRule());
    expect(withExportRule(policy)).toBe(policy);
  });

  it('offers per operation what the service offers, JSON first', () => {
    const offers = operationOffers();
    for (const resource of RESOURCES) {
      expect(offers.get(operationNames(resource).path)).toEqual(resourceOffers(resource).map((offer) => offer.mediaType));
      expect(renderExportRule()).toContain(`context.Operation.UrlTemplate == "${operationNames(resource).path}"`);
    }
  });

  it.each([
    ['', false],
    ['application/json', false],
    ['*/*', false],
    ['application/*', false],
    ['application/vnd.apache.parquet', true],
    ['APPLICATION/VND.APACHE.PARQUET', true],
    ['application/zip', true],
    ['application/json;q=0, */*', true],
    ['application/json;q=0.5, application/vnd.apache.parquet', true],
    ['application/vnd.apache.parquet;q=0.5, application/json', false],
    ['text/csv', true],
  ])('Accept "%s" on invoices: export %s, as the service decides', (accept, exported) => {
    const invoices = RESOURCES.find((resource) => resource.name === 'invoices')!;
    expect(serviceExports(accept, invoices)).toBe(exported);
    expect(gatewayRule(accept, operationOffers().get(operationNames(invoices).path)!)).toBe(exported);
  });

  it('agrees with the service\'s negotiation on any Accept header, for every operation', () => {
    const token = fc.constantFrom('application', 'APPLICATION', 'json', 'JSON', 'vnd.apache.parquet', 'zip', '*', 'text', 'csv', 'x');
    const quality = fc.constantFrom('q=0', 'q=1', 'q=0.5', 'q=0.500', 'q=1.0', 'q=1.5', 'q=abc', 'Q=0.3', ' q = 0.2 ', 'q=', 'level=1', 'q=0.', 'q=.5');
    const range = fc.tuple(token, token, fc.array(quality, { maxLength: 2 }), fc.constantFrom('', ' ', '  ')).map(([type, subtype, params, pad]) => [`${pad}${type}/${subtype}`, ...params].join(';'));
    const header = fc.oneof(fc.array(range, { maxLength: 4 }).map((ranges) => ranges.join(',')), fc.string({ maxLength: 30 }));
    fc.assert(fc.property(header, (accept) => {
      for (const resource of RESOURCES) {
        expect([resource.name, accept, gatewayRule(accept, operationOffers().get(operationNames(resource).path)!)]).toEqual([resource.name, accept, serviceExports(accept, resource)]);
      }
    }), { numRuns: 3000 });
    // Beyond printable ASCII (where .NET and JavaScript trim and fold case differently) the gateway counts an export.
    const odd = fc.tuple(header, fc.constantFrom('\u0085', '\u00a0', '\u0130', '\u212a', '\ufeff', '\n', '\u00e9'), fc.nat(40))
      .map(([text, character, at]) => text.slice(0, at) + character + text.slice(at));
    fc.assert(fc.property(odd, (accept) => {
      for (const resource of RESOURCES) expect(gatewayRule(accept, operationOffers().get(operationNames(resource).path)!)).toBe(true);
    }), { numRuns: 500 });
    const invoices = RESOURCES.find((resource) => resource.name === 'invoices')!;
    expect(serviceExports('\u0085application/json, application/zip', invoices)).toBe(true);
    expect(renderExportRule()).toContain('Regex.IsMatch(accept, "[^\\\\t\\\\x20-\\\\x7E]")) { return (string)context.Variables["client"]; }');
  });

  it('can fail: the old rule (a case-sensitive Contains of the Parquet type) disagrees with the service', () => {
    const invoices = RESOURCES.find((resource) => resource.name === 'invoices')!;
    const oldRule = (accept: string) => accept.includes('application/vnd.apache.parquet');
    const disagreements = ['application/zip', 'APPLICATION/VND.APACHE.PARQUET', 'application/json;q=0, */*'].filter((accept) => oldRule(accept) !== serviceExports(accept, invoices));
    expect(disagreements).toHaveLength(3);
  });
});
