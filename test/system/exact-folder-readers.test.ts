import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isComplete, pull, readSettings, summaryApi } from '../../client/src/index.js';
import { clientSettings } from '../../dev/client-settings.js';
import { buildAllowlist } from '../../shared/access/allowlist.js';
import { DATAPOINTS, type RoleDatapoints } from '../../shared/access/datapoints.js';
import { CONTRACTS } from '../../shared/model/contracts.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { pythonEnv } from '../support/python-env.js';
import { runChild } from '../support/run-child.js';
import { client, identities, stack } from '../support/stack.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { tempDirs } from '../support/temp-dirs.js';

// A pulled folder, night after night, read by the four readers users open it with — pandas,
// pyarrow, polars and DuckDB, in Python, with no options — after writes through the SDK and a
// change of the roles-to-datapoints configuration (the service restarted at the same address):
// every reader must see exactly the store's records for the caller, with one schema.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const READ = `
import json, sys
import duckdb, pandas as pd, polars as pl, pyarrow.parquet as pq
folder = sys.argv[1]
def seen(columns, ids, titles):
    return {"columns": list(columns), "records": dict(sorted(zip([str(i) for i in ids], [str(t) for t in titles])))}
arrow = pq.read_table(folder)
frame = pd.read_parquet(folder)
polars = pl.read_parquet(folder + "/*.parquet")
duck = duckdb.sql(f"SELECT * FROM read_parquet('{folder}/*.parquet')").fetch_arrow_table()
print(json.dumps({
    "pyarrow": seen(arrow.column_names, arrow.column("contractId").to_pylist(), arrow.column("title").to_pylist()),
    "pandas": seen(frame.columns, frame["contractId"], frame["title"]),
    "polars": seen(polars.columns, polars["contractId"].to_list(), polars["title"].to_list()),
    "duckdb": seen(duck.column_names, duck.column("contractId").to_pylist(), duck.column("title").to_pylist()),
}))
`;
const RANGE = { from: '2024-01-01', to: '2024-03-31' };
const WITHOUT_AMOUNTS: Readonly<Record<string, RoleDatapoints>> = {
  ...DATAPOINTS,
  'Data.Read.Financials': { ...DATAPOINTS['Data.Read.Financials']!, fields: { ...DATAPOINTS['Data.Read.Financials']!.fields, contracts: [] } },
};

const folder = tempDirs('readers')();
let python: string;
let own: OwnTenant;
let service: TestService | undefined;
let datapoints: Readonly<Record<string, RoleDatapoints>> = DATAPOINTS;
let port = 0;
let serial = 0;
let template: Doc;

async function serve(config: Readonly<Record<string, RoleDatapoints>>): Promise<void> {
  await service?.stop();
  datapoints = config;
  service = await startTestService({
    port, datapoints, clock: () => Date.now() + (QUIET_SECONDS + 3) * 1000,
    settings: { CLIENT_REGISTRY: JSON.stringify({ [client('contoso-full').clientId]: own.tenant }) },
  });
  port = Number(new URL(service.baseUrl).port);
}

function contract(createdDate: string): Doc {
  const id = `CON-READER-${++serial}`;
  return { ...template, id, contractId: id, status: 'Published', title: `contract ${id}`, createdDate, updatedDate: createdDate };
}

beforeAll(async () => {
  python = await pythonEnv('python-readers', ['pyarrow', 'pandas', 'polars', 'duckdb']);
  own = await startOwnTenant(1, { secondPerWrite: true });
  template = (await own.documents('contracts'))[0]!;
  await own.remove('contracts', [template.id]);
  await own.write('contracts', ['01', '02', '03'].flatMap((month) => [contract(`2024-${month}-05T10:00:00.000Z`), contract(`2024-${month}-20T10:00:00.000Z`)]));
  await serve(DATAPOINTS);
}, 600_000);

afterAll(async () => {
  await service?.stop();
  await own?.stop();
});

async function night(): Promise<void> {
  const settings = readSettings(clientSettings({ baseUrl: service!.baseUrl, authUrl: service!.idp!.url, identities, caFile: stack.caFile }));
  const summary = await pull(summaryApi(settings), { dataset: 'contracts', ...RANGE, by: 'created', format: 'parquet', filters: {}, out: folder, source: { service: settings.baseUrl, client: settings.client } });
  expect({ complete: isComplete(summary), moving: summary.moving }).toEqual({ complete: true, moving: [] });
  const documents = (await own.documents('contracts')).filter((doc) => doc.createdDate < '2024-04');
  const want = {
    columns: buildAllowlist(datapoints).view(CONTRACTS, client('contoso-full').roles).fields.map((field) => field.name),
    records: Object.fromEntries(documents.map((doc) => [String(doc.contractId), String(doc.title)]).sort(([a], [b]) => a!.localeCompare(b!))),
  };
  const result = await runChild(python, ['-c', READ, folder], { HOME: process.env.HOME ?? '' }, 120_000);
  if (result.code !== 0) throw new Error(`a reader failed: ${result.stderr}`);
  const seen = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  expect(seen).toEqual({ pyarrow: want, pandas: want, polars: want, duckdb: want });
}

describe('a pulled folder read by pandas, pyarrow, polars and DuckDB with no options', () => {
  it('equals the store after the first pull', night);

  it('keeps one schema when the caller\'s columns narrow, and again when they widen', async () => {
    await serve(WITHOUT_AMOUNTS);
    await night();
    await serve(DATAPOINTS);
    await night();
  });

  it('has an update to a settled month, a delete and a back-dated record after the next night', async () => {
    const documents = await own.documents('contracts');
    const [january, february] = [documents.find((doc) => doc.createdDate.startsWith('2024-01'))!, documents.find((doc) => doc.createdDate.startsWith('2024-02'))!];
    await own.write('contracts', [{ ...february, title: 'amended in a settled month' }, contract('2024-03-01T00:00:00.000Z')]);
    await own.remove('contracts', [january.id]);
    await night();
  });
});
