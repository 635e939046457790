/**
 * The recipes for the data-loading tools users run (docs/recipes/, issue 52): dlt's rest_api
 * source and Airbyte's low-code manifest are not on the registries CI reaches, so they are run by
 * hand against the local stack (docs/consuming.md says which versions) and held here to the
 * contract: every request they build, every member they read and every column they hint is one the
 * OpenAPI document has. test/integration/delta-operation.test.ts follows a delta as they do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../../dev/project-root.js';
import { DATASETS } from '../../../client/src/datasets.js';
import { DELTA_CODES, ERROR_CODES } from '../../../shared/errors/error-codes.js';
import { committedDocument } from '../../support/document-validator.js';

const root = projectRoot();
type Schema = { properties?: Record<string, { format?: string; description?: string; $ref?: string; items?: { $ref?: string } }> };
const schemas = (committedDocument() as { components: { schemas: Record<string, Schema> } }).components.schemas;

/** How a loader should type each field the document gives a type a JSON number or string cannot carry alone. */
function kindsOf(schema: string): Record<string, string> {
  const kinds: Record<string, string> = {};
  for (const [name, property] of Object.entries(schemas[schema]!.properties ?? {})) {
    const scale = /precision 18 and scale (\d)/.exec(property.description ?? '')?.[1];
    if (scale === '2') kinds[name] = 'money';
    else if (scale === '4') kinds[name] = 'quantity';
    else if (property.format === 'date') kinds[name] = 'date';
    else if (property.format === 'date-time') kinds[name] = 'instant';
  }
  return kinds;
}

/** A Python dict literal of string keys and values, as the recipe writes its hints. */
function pythonDict(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/"(\w+)": "(\w+)"/g)].map((match) => [match[1]!, match[2]!]));
}

describe('docs/recipes/dlt_summary_delta.py (dlt rest_api)', () => {
  const recipe = readFileSync(join(root, 'docs/recipes/dlt_summary_delta.py'), 'utf8');

  it('hints every amount as the decimal the service\'s Parquet has, and every date and instant, in each table', () => {
    const hints = recipe.slice(recipe.indexOf('HINTS = {'), recipe.indexOf('\n}\n', recipe.indexOf('HINTS = {')));
    const table = (name: string) => pythonDict(new RegExp(`"${name}": \\{([^}]*)\\}`).exec(hints)?.[1] ?? '');
    expect(table('contracts')).toEqual(kindsOf('ContractRecord'));
    expect(table('invoices')).toEqual(kindsOf('InvoiceRecord'));
    expect(table('lines')).toEqual(kindsOf('InvoiceLine'));
    expect(recipe).toContain('"money": {"data_type": "decimal", "precision": 18, "scale": 2}');
    expect(recipe).toContain('"quantity": {"data_type": "decimal", "precision": 18, "scale": 4}');
    // The nested table is the invoices' `lines` array.
    expect(schemas.InvoiceRecord!.properties!.lines!.items!.$ref).toBe('#/components/schemas/InvoiceLine');
    expect(recipe).toContain('nested_hints={"lines":');
  });

  it('merges by each dataset\'s id and deletes by the removal member', () => {
    expect(pythonDict(/ID = \{([^}]*)\}/.exec(recipe)?.[1] ?? '')).toEqual({ contracts: DATASETS.contracts.idField, invoices: DATASETS.invoices.idField });
    expect(recipe).toContain('"write_disposition": {"disposition": "merge", "strategy": "delete-insert"}');
    expect(recipe).toContain('{"name": "_removed", "data_type": "text", "hard_delete": True}');
    const removal = JSON.stringify(schemas.ContractsDeltaPage);
    expect(removal).toContain('"_removed"');
  });

  it('asks the delta operation, follows its next links, and keeps the last page\'s token', () => {
    expect(recipe).toContain('"path": f"v1/{name}/delta"');
    expect(recipe).toContain('"method": "POST"');
    expect(recipe).toContain('"json": {"deltaToken": token} if token else {}');
    expect(recipe).toContain('"paginator": {"type": "json_link", "next_url_path": "pagination.nextLink"}');
    expect(recipe).toContain('(response.json().get("delta") or {}).get("deltaToken")');
    for (const resource of ['contracts', 'invoices']) {
      const document = committedDocument() as { paths: Record<string, { post?: unknown }> };
      expect(document.paths[`/v1/${resource}/delta`]?.post).toBeDefined();
    }
    expect(Object.keys(schemas.DeltaPagination!.properties!)).toContain('nextLink');
    expect(Object.keys(schemas.DeltaLinks!.properties!)).toContain('deltaToken');
    expect(Object.keys(schemas.ContractsDeltaRequest!.properties!)).toContain('deltaToken');
  });

  it('gets its token by client credentials with Entra\'s scope member, and sends both keys', () => {
    expect(recipe).toContain('"type": "oauth2_client_credentials"');
    expect(recipe).toContain('"access_token_request_data": {"scope": env("SUMMARY_SCOPE")}');
    expect(recipe).toContain('/oauth2/v2.0/token');
    expect(recipe).toContain('"headers": {"Ocp-Apim-Subscription-Key": env("SUMMARY_SUBSCRIPTION_KEY"), "x-api-key": env("SUMMARY_API_KEY")}');
  });

  it('starts again from the whole view on exactly the codes that say to, and on no other', () => {
    const codes = /START_AGAIN = \{([^}]*)\}/.exec(recipe)?.[1]?.match(/[A-Z_]+/g) ?? [];
    expect(new Set(codes)).toEqual(new Set([...DELTA_CODES].filter((code) => code !== 'DELTA_PAGE_NOT_FOUND')));
    expect(new Set(codes.map((code) => ERROR_CODES[code as keyof typeof ERROR_CODES].status))).toEqual(new Set([400, 409, 410]));
    expect(recipe).toContain('response.status_code in (400, 409, 410)');
    expect(recipe).toContain('refresh="drop_resources"');
    // Any other failure: the local state (the unlanded extract's tokens) dropped, the destination's taken next run.
    expect(recipe).toContain('pipeline.drop()');
    expect(recipe).toContain('pipeline.sync_destination()');
  });
});
