/**
 * The recipes for the data-loading tools users run (docs/recipes/, issue 52): dlt's rest_api
 * source and Airbyte's low-code CDK are not on the registries CI reaches, so they are run by
 * hand against the local stack (docs/consuming.md says which versions) and held here to the
 * contract: every request they build, every member they read and every column they hint is one the
 * OpenAPI document has. test/integration/delta-operation.test.ts follows a delta as they do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { projectRoot } from '../../../dev/project-root.js';
import { DATASETS, MAX_PAGE_SIZE } from '../../../client/src/datasets.js';
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

describe('docs/recipes/airbyte (Airbyte low-code manifest)', () => {
  type Node = Record<string, any>;
  const text = readFileSync(join(root, 'docs/recipes/airbyte/manifest.yaml'), 'utf8');
  const manifest = parse(text) as Node;
  const components = readFileSync(join(root, 'docs/recipes/airbyte/components.py'), 'utf8');
  const definitions = manifest.definitions as Node;
  /** A `$ref` of the manifest resolved (`#/definitions/…`), as the CDK resolves it. */
  const resolve = (node: Node): Node => {
    if (typeof node?.$ref !== 'string') return node;
    const target = (node.$ref as string).slice(2).split('/').reduce((at: Node, key) => at[key], manifest);
    const { $ref, ...rest } = node;
    return { ...resolve(target), ...rest };
  };
  const stream = (name: string) => resolve((manifest.streams as Node[]).find((candidate) => candidate.name === name)!);
  const requester = definitions.requester as Node;

  it('has the spec Airbyte asks of every source, its secrets marked', () => {
    const spec = manifest.spec.connection_specification as Node;
    expect(spec.required).toEqual(['base_url', 'tenant_id', 'client_id', 'client_secret', 'scope', 'subscription_key', 'api_key']);
    for (const secret of ['client_secret', 'subscription_key', 'api_key']) expect(spec.properties[secret].airbyte_secret).toBe(true);
    // The service's largest page, also the default when none is set.
    expect([spec.properties.page_size.maximum, spec.properties.page_size.default]).toEqual([MAX_PAGE_SIZE, MAX_PAGE_SIZE]);
  });

  it('gets its token by client credentials with Entra\'s scope member, and sends both keys', () => {
    const auth = requester.authenticator as Node;
    expect(auth).toMatchObject({ type: 'OAuthAuthenticator', grant_type: 'client_credentials', refresh_request_body: { scope: "{{ config['scope'] }}" } });
    expect(auth.scopes).toBeUndefined();
    expect(auth.token_refresh_endpoint).toContain('/oauth2/v2.0/token');
    expect(requester.request_headers).toEqual({ 'Ocp-Apim-Subscription-Key': "{{ config['subscription_key'] }}", 'x-api-key': "{{ config['api_key'] }}" });
  });

  it('asks each dataset\'s delta operation and each later page by its name, to the last page', () => {
    const document = committedDocument() as { paths: Record<string, { post?: unknown }> };
    expect(requester).toMatchObject({ http_method: 'POST', path: "v1/{{ parameters['name'] }}/delta" });
    for (const name of ['contracts', 'invoices'] as const) {
      const resolved = stream(name);
      expect(resolved.$parameters.name).toBe(name);
      expect(resolved.primary_key).toBe(DATASETS[name].idField);
      expect(document.paths[`/v1/${name}/delta`]?.post).toBeDefined();
    }
    const paginator = (definitions.delta_stream as Node).retriever.paginator as Node;
    expect(paginator.pagination_strategy).toMatchObject({ cursor_value: '{{ response.delta.nextPage }}', stop_condition: '{{ not response.pagination.hasNext }}' });
    expect(paginator.page_token_option).toEqual({ type: 'RequestOption', inject_into: 'body_json', field_name: 'deltaPage' });
    expect(Object.keys(schemas.DeltaPagination!.properties!)).toContain('hasNext');
    expect(Object.keys(schemas.DeltaLinks!.properties!)).toContain('nextPage');
    expect(Object.keys(schemas.ContractsDeltaRequest!.properties!)).toEqual(expect.arrayContaining(['pageSize', 'deltaToken', 'deltaPage']));
    expect(requester.request_body_json).toEqual({ pageSize: `{{ config.get('page_size') or ${MAX_PAGE_SIZE} }}` });
  });

  it('keeps the last page\'s token as the stream state and sends it as deltaToken', () => {
    const stream = definitions.delta_stream as Node;
    expect(stream.incremental_sync).toMatchObject({ type: 'CustomIncrementalSync', class_name: 'components.DeltaTokenCursor' });
    expect(stream.retriever.record_selector.extractor).toMatchObject({ type: 'CustomRecordExtractor', class_name: 'components.DeltaRows' });
    expect(components).toContain('class DeltaRows(RecordExtractor)');
    expect(components).toContain('class DeltaTokenCursor(DeclarativeCursor)');
    // What they do over a delta's pages: test/integration/recipe-sources.test.ts.
    expect(Object.keys(schemas.DeltaLinks!.properties!)).toContain('deltaToken');
    expect(Object.keys(schemas.ContractsDeltaPage!.properties!)).toEqual(expect.arrayContaining(['data', 'delta', 'pagination']));
  });

  it('marks removal rows for a deduplicating destination, and orders a record\'s rows by when they were read', () => {
    const fields = Object.fromEntries(((definitions.delta_stream as Node).transformations[0].fields as Node[]).map((field) => [field.path.join('.'), field.value]));
    expect(fields._ab_cdc_deleted_at).toBe("{{ now_utc().isoformat() if record.get('_removed') else None }}");
    expect(fields._ab_cdc_updated_at).toBe('{{ now_utc().isoformat() }}');
    expect((definitions.delta_stream as Node).incremental_sync.cursor_field).toBe('_ab_cdc_updated_at');
    expect(JSON.stringify(schemas.ContractsDeltaPage)).toContain('"_removed"');
  });

  it('types every field the document has, amounts as numbers, dates and instants by their formats', () => {
    const kindOf = (property: Node): string | undefined => {
      const resolved = resolve(property);
      if (/scale 2/.test(resolved.description ?? '')) return 'money';
      if (/scale 4/.test(resolved.description ?? '')) return 'quantity';
      if (resolved.format === 'date') return 'date';
      if (resolved.format === 'date-time') return 'instant';
      return undefined;
    };
    const check = (properties: Node, record: string) => {
      const documented = Object.keys(schemas[record]!.properties!);
      expect(Object.keys(properties).filter((name) => !name.startsWith('_'))).toEqual(documented);
      const kinds = Object.fromEntries(Object.entries(properties).filter(([name]) => !name.startsWith('_')).map(([name, property]) => [name, kindOf(property as Node)]).filter(([, kind]) => kind));
      expect(kinds).toEqual(kindsOf(record));
    };
    check(stream('contracts').schema_loader.schema.properties, 'ContractRecord');
    const invoice = stream('invoices').schema_loader.schema.properties as Node;
    check(invoice, 'InvoiceRecord');
    check(invoice.lines.items.properties, 'InvoiceLine');
    expect(resolve(definitions.money as Node).type).toEqual(['null', 'number']);
    expect(resolve(definitions.instant as Node).airbyte_type).toBe('timestamp_with_timezone');
  });

  it('fails the sync on exactly the codes of a token the service will not continue, asking for a refresh; a page no longer kept as transient', () => {
    const filters = (requester.error_handler as Node).response_filters as Node[];
    const refused = filters.find((filter) => filter.failure_type === 'config_error')!;
    const codes = /\[([^\]]*)\]/.exec(refused.predicate as string)?.[1]?.match(/[A-Z_]+/g) ?? [];
    expect(new Set(codes)).toEqual(new Set([...DELTA_CODES].filter((code) => code !== 'DELTA_PAGE_NOT_FOUND')));
    expect(refused.failure_type).toBe('config_error');
    expect(refused.error_message).toContain('Refresh the stream');
    // A later page no longer kept: the same token again next sync, nothing to refresh.
    const pageGone = filters.find((filter) => filter.failure_type === 'transient_error')!;
    expect(pageGone).toMatchObject({ action: 'FAIL', predicate: "{{ response.code == 'DELTA_PAGE_NOT_FOUND' }}" });
    expect(DELTA_CODES.has('DELTA_PAGE_NOT_FOUND')).toBe(true);
    expect(filters).toHaveLength(2);
    expect((requester.error_handler as Node).backoff_strategies).toEqual([{ type: 'WaitTimeFromHeader', header: 'Retry-After' }]);
  });

  it('is run by a main.py that gives the CDK the manifest and the components beside it', () => {
    const main = readFileSync(join(root, 'docs/recipes/airbyte/main.py'), 'utf8');
    expect(main).toContain('ManifestDeclarativeSource(source_config=manifest)');
    expect(main).toContain('sys.path.insert(0, str(HERE))');
    expect(text).toMatch(/^version: \d+\.\d+\.\d+$/m);
  });
});
