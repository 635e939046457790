/**
 * Evaluates the part of Data Factory's expression language the recipes use (docs/recipes/
 * data-factory.json), so a test can compute what a pipeline would send: string and integer
 * literals, `pipeline().parameters.x`, `item()`, `dataset().x`, `activity('a').output.x`,
 * `variables('v')`, and the functions concat, add, sub, min, max, range, if, equals, encodeUriComponent,
 * startsWith and endsWith (case-insensitive, as Data Factory's), and, length, `?.` (members are read null-safely either way), substring (out of range throws, as it
 * fails a run), formatDateTime (yyyy-MM-dd, yyyy-MM), addToTime (Month, Day), addDays, string (an
 * object or array as its JSON) and json. Anything else throws: a recipe using it needs it here.
 * Every argument is evaluated, the branch `if` does not take too, so an expression must hold either
 * way. The Fabric pipeline (docs/recipes/fabric/) is written in the same language.
 */
export interface ExpressionScope {
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly item?: unknown;
  readonly dataset?: Readonly<Record<string, unknown>>;
  readonly activities?: Readonly<Record<string, unknown>>;
  readonly variables?: Readonly<Record<string, unknown>>;
}

type Token = { kind: 'string' | 'number' | 'name' | 'punct'; text: string };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  for (let at = 0; at < source.length; ) {
    const char = source[at]!;
    if (/\s/.test(char)) { at += 1; continue; }
    if (char === "'") {
      let text = '';
      for (at += 1; ; at += 1) {
        if (at >= source.length) throw new SyntaxError('unterminated string');
        if (source[at] === "'" && source[at + 1] === "'") { text += "'"; at += 1; continue; }
        if (source[at] === "'") { at += 1; break; }
        text += source[at];
      }
      tokens.push({ kind: 'string', text });
      continue;
    }
    const number = /^-?\d+/.exec(source.slice(at));
    if (number) { tokens.push({ kind: 'number', text: number[0] }); at += number[0].length; continue; }
    const name = /^[A-Za-z_]\w*/.exec(source.slice(at));
    if (name) { tokens.push({ kind: 'name', text: name[0] }); at += name[0].length; continue; }
    if ('(),.'.includes(char)) { tokens.push({ kind: 'punct', text: char }); at += 1; continue; }
    // `?.`: the null-safe member access (a missing member is null, not a failed run).
    if (char === '?' && source[at + 1] === '.') { tokens.push({ kind: 'punct', text: '.' }); at += 2; continue; }
    throw new SyntaxError(`unexpected ${char} at ${at}`);
  }
  return tokens;
}

const pad = (value: number) => String(value).padStart(2, '0');
function asDate(value: unknown): Date {
  const date = new Date(`${String(value).slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) throw new TypeError(`not a date: ${String(value)}`);
  return date;
}
function isoDay(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

const FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  concat: (...args) => args.map(String).join(''),
  add: (a, b) => Number(a) + Number(b),
  range: (start, count) => Array.from({ length: Number(count) }, (_, index) => Number(start) + index),
  if: (condition, then, otherwise) => (condition ? then : otherwise),
  equals: (a, b) => a === b,
  encodeUriComponent: (value) => encodeURIComponent(String(value)),
  startsWith: (text, search) => String(text).toLowerCase().startsWith(String(search).toLowerCase()),
  endsWith: (text, search) => String(text).toLowerCase().endsWith(String(search).toLowerCase()),
  and: (a, b) => a === true && b === true,
  length: (value) => (Array.isArray(value) ? value.length : String(value).length),
  sub: (a, b) => Number(a) - Number(b),
  min: (...values) => Math.min(...values.map(Number)),
  max: (...values) => Math.max(...values.map(Number)),
  substring: (text, start, length) => {
    const from = Number(start);
    if (from < 0 || Number(length) < 0 || from + Number(length) > String(text).length) throw new RangeError('substring out of range');
    return String(text).slice(from, from + Number(length));
  },
  string: (value) => (typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)),
  json: (value) => JSON.parse(String(value)) as unknown,
  addDays: (time, days) => isoDay(new Date(asDate(time).getTime() + Number(days) * 86_400_000)),
  addToTime: (time, amount, unit) => {
    const date = asDate(time);
    if (unit === 'Day') return isoDay(new Date(date.getTime() + Number(amount) * 86_400_000));
    if (unit !== 'Month') throw new TypeError(`addToTime unit ${String(unit)}`);
    return isoDay(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + Number(amount), date.getUTCDate())));
  },
  formatDateTime: (time, format) => {
    const day = isoDay(asDate(time));
    if (format === 'yyyy-MM-dd') return day;
    if (format === 'yyyy-MM') return day.slice(0, 7);
    throw new TypeError(`formatDateTime format ${String(format)}`);
  },
};

/** The value of an expression (`@…`); a string without `@` is itself. */
export function evaluate(expression: string, scope: ExpressionScope): unknown {
  if (!expression.startsWith('@')) return expression;
  const tokens = tokenize(expression.slice(1));
  let at = 0;
  const next = () => tokens[at++] ?? { kind: 'punct', text: '<end>' };
  const expect = (text: string) => { const token = next(); if (token.text !== text) throw new SyntaxError(`expected ${text}, got ${token.text}`); };
  const args = (): unknown[] => {
    expect('(');
    const values: unknown[] = [];
    if (tokens[at]?.text === ')') { at += 1; return values; }
    for (;;) {
      values.push(value());
      const token = next();
      if (token.text === ')') return values;
      if (token.text !== ',') throw new SyntaxError(`expected , or ), got ${token.text}`);
    }
  };
  const member = (base: unknown): unknown => {
    let current = base;
    while (tokens[at]?.text === '.') {
      at += 1;
      const name = next().text;
      current = (current as Record<string, unknown> | undefined)?.[name];
    }
    return current;
  };
  const value = (): unknown => {
    const token = next();
    if (token.kind === 'string') return token.text;
    if (token.kind === 'number') return Number(token.text);
    if (token.kind !== 'name') throw new SyntaxError(`unexpected ${token.text}`);
    if (token.text === 'pipeline') { args(); return member({ parameters: scope.parameters ?? {} }); }
    if (token.text === 'item') { args(); return member(scope.item); }
    if (token.text === 'dataset') { args(); return member(scope.dataset ?? {}); }
    if (token.text === 'activity') { const [name] = args(); return member(scope.activities?.[String(name)]); }
    if (token.text === 'variables') { const [name] = args(); if (!Object.hasOwn(scope.variables ?? {}, String(name))) throw new TypeError(`no variable ${String(name)}`); return member(scope.variables![String(name)]); }
    const fn = FUNCTIONS[token.text];
    if (!fn) throw new TypeError(`the expression uses ${token.text}(), which this evaluator does not know`);
    return fn(...args());
  };
  const result = value();
  if (at !== tokens.length) throw new SyntaxError(`trailing ${tokens[at]?.text}`);
  return result;
}

/** A property of a pipeline: a literal string as it is, or an `Expression` object evaluated. */
export type PipelineValue = string | { value: string; type: 'Expression' };

/** The value of a pipeline property in `scope` (Data Factory's and Fabric's pipelines write them alike). */
export function valueOf(entry: PipelineValue, scope: ExpressionScope): unknown {
  return typeof entry === 'string' ? entry : evaluate(entry.value, scope);
}

/** A map of pipeline properties (a Web activity's or a REST source's headers) as the strings sent. */
export function headersOf(entries: Record<string, PipelineValue>, scope: ExpressionScope): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).map(([header, entry]) => [header, String(valueOf(entry, scope))]));
}
