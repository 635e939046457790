/**
 * The Python recipes users copy (docs/recipes/) with the machine's python3. The tools they import
 * (dlt, Airbyte's CDK) are not on the registries CI reaches, so here every file compiles, and the
 * Airbyte recipe's two components run over a delta's pages with the CDK's base classes stood in
 * for (the only parts of it they use: plain bases and a slice type). They were run with the real
 * CDK by hand (docs/consuming.md, "Airbyte"); test/unit/docs/loader-recipes.test.ts holds the
 * recipes to the contract.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../dev/project-root.js';
import { runChild } from '../support/run-child.js';

const python = process.env.PYTHON ?? 'python3';
const SOURCES = ['docs/recipes/airbyte/components.py', 'docs/recipes/airbyte/main.py', 'docs/recipes/dlt_summary_delta.py'];
const work = mkdtempSync(join(tmpdir(), 'recipe-sources-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The CDK modules components.py imports, as plain stand-ins. */
const STAND_INS: Record<string, string> = {
  'requests/__init__.py': 'class Response: pass\n',
  'airbyte_cdk/__init__.py': '',
  'airbyte_cdk/sources/__init__.py': '',
  'airbyte_cdk/sources/declarative/__init__.py': '',
  'airbyte_cdk/sources/declarative/extractors/__init__.py': '',
  'airbyte_cdk/sources/declarative/extractors/record_extractor.py': 'class RecordExtractor: pass\n',
  'airbyte_cdk/sources/declarative/incremental/__init__.py': 'class DeclarativeCursor: pass\n',
  'airbyte_cdk/sources/declarative/types.py': [
    'Record = dict',
    'StreamState = dict',
    'class StreamSlice(dict):',
    '    def __init__(self, *, partition, cursor_slice):',
    '        super().__init__(**partition, **cursor_slice)',
  ].join('\n'),
};

/** Reads two streams' deltas through the components as the CDK drives them, and prints what each step left. */
const SCENARIO = `
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from components import DeltaRows, DeltaTokenCursor

class Page:
    def __init__(self, body): self.body = body
    def json(self): return self.body

def page(rows, next_page=None, token=None):
    return Page({"data": rows, "pagination": {"hasNext": next_page is not None}, "delta": {k: v for k, v in (("nextPage", next_page), ("deltaToken", token)) if v}})

seen = {}
contracts, invoices = DeltaTokenCursor(parameters={"name": "contracts"}), DeltaTokenCursor(parameters={"name": "invoices"})
rows, other_rows = DeltaRows(parameters={"name": "contracts"}), DeltaRows(parameters={"name": "invoices"})
contracts.set_initial_state({"deltaToken": "d1.old"})
invoices.set_initial_state({})
seen["body"] = contracts.get_request_body_json()
seen["first body"] = invoices.get_request_body_json()
seen["slices"] = len(list(contracts.stream_slices()))
seen["page 1"] = list(rows.extract_records(page([{"contractId": "A"}, {"contractId": "B", "_removed": "deleted"}], next_page="p.2")))
seen["state after page 1"] = contracts.get_stream_state()
seen["page 2"] = list(rows.extract_records(page([{"contractId": "C"}], token="d1.new")))
list(other_rows.extract_records(page([], token="d1.invoices")))
seen["state before close"] = contracts.get_stream_state()
contracts.close_slice(next(iter(contracts.stream_slices())))
seen["state"] = contracts.get_stream_state()
seen["next body"] = contracts.get_request_body_json()
invoices.close_slice(next(iter(invoices.stream_slices())))
seen["invoices state"] = invoices.get_stream_state()
# A sync whose last page never came keeps its state.
contracts.set_initial_state({"deltaToken": "d1.new"})
list(rows.extract_records(page([{"contractId": "D"}], next_page="q.2")))
contracts.close_slice(next(iter(contracts.stream_slices())))
seen["state without a last page"] = contracts.get_stream_state()
# A token read before the state was set (an earlier attempt in the process) is not taken.
list(rows.extract_records(page([], token="d1.stale")))
contracts.set_initial_state({"deltaToken": "d1.new"})
contracts.close_slice(next(iter(contracts.stream_slices())))
seen["state after a reset"] = contracts.get_stream_state()
try:
    list(rows.extract_records(Page({"data": [], "pagination": {"hasNext": True}, "delta": {}})))
    seen["more without a next page"] = "read"
except ValueError as error:
    seen["more without a next page"] = str(error)
print(json.dumps(seen))
`;

describe('the Python recipes', () => {
  it('compile, every one of them', async () => {
    const compiled = await runChild(python, ['-m', 'py_compile', ...SOURCES], { PYTHONPYCACHEPREFIX: join(work, 'pycache') });
    expect(compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
  });

  it('Airbyte: the last page\'s token becomes the stream state when its slice closes, and is sent next time', async () => {
    const cdk = join(work, 'cdk');
    for (const [file, text] of Object.entries(STAND_INS)) {
      mkdirSync(dirname(join(cdk, file)), { recursive: true });
      writeFileSync(join(cdk, file), text);
    }
    writeFileSync(join(work, 'scenario.py'), SCENARIO);
    const run = await runChild(python, [join(work, 'scenario.py'), cdk, join(projectRoot(), 'docs/recipes/airbyte')], { PYTHONDONTWRITEBYTECODE: '1' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      body: { deltaToken: 'd1.old' },
      'first body': {},
      slices: 1,
      'page 1': [{ contractId: 'A' }, { contractId: 'B', _removed: 'deleted' }],
      'state after page 1': { deltaToken: 'd1.old' },
      'page 2': [{ contractId: 'C' }],
      'state before close': { deltaToken: 'd1.old' },
      state: { deltaToken: 'd1.new' },
      'next body': { deltaToken: 'd1.new' },
      'invoices state': { deltaToken: 'd1.invoices' },
      'state without a last page': { deltaToken: 'd1.new' },
      'state after a reset': { deltaToken: 'd1.new' },
      'more without a next page': 'a page of the contracts delta says there is more but names no next page',
    });
  });
});
