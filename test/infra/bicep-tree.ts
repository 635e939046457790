/**
 * Reads the Bicep templates with a real Bicep grammar (tree-sitter-bicep, run by web-tree-sitter as
 * WebAssembly: no native build, no Bicep compiler) and answers structural questions about them.
 * What this cannot do — type checking, resolving resource types and API versions, linting — is
 * left to `az bicep build` and `az bicep lint` in the deployment pipeline (docs/deploy.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Language, Parser, type Node } from 'web-tree-sitter';

export type { Node };

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The infrastructure folder. */
export const INFRA = join(ROOT, 'infra');

let parser: Promise<Parser> | undefined;

/** The Bicep parser, loaded once from the WebAssembly grammar that tree-sitter-bicep ships. */
export function bicepParser(): Promise<Parser> {
  parser ??= (async () => {
    await Parser.init();
    const wasm = createRequire(import.meta.url).resolve('tree-sitter-bicep/tree-sitter-bicep.wasm');
    const language = await Language.load(wasm);
    const instance = new Parser();
    instance.setLanguage(language);
    return instance;
  })();
  return parser;
}

/** A parsed template. */
export interface BicepFile {
  readonly path: string;
  readonly source: string;
  readonly root: Node;
}

/** Parses Bicep source text. */
export async function parseBicep(source: string, path = '<inline>'): Promise<BicepFile> {
  const tree = (await bicepParser()).parse(source);
  if (tree === null) throw new Error(`tree-sitter returned no tree for ${path}`);
  return { path, source, root: tree.rootNode };
}

/** Parses a template file. */
export async function parseBicepFile(path: string): Promise<BicepFile> {
  return parseBicep(readFileSync(path, 'utf8'), path);
}

/**
 * The grammar has no rule for a parameters file's `param name = value` (its `param` needs a type).
 * Rewriting the keyword of those lines to `var  ` (same length, so positions stay right) makes the
 * rest — `using`, every value expression — parse with the real grammar.
 */
export function bicepparamAsBicep(source: string): string {
  return source.replace(/^param(?=\s+[A-Za-z_][A-Za-z0-9_]*\s*=)/gm, 'var  ');
}

/** A syntax problem: an ERROR node (unparseable text) or a MISSING node (an expected token). */
export interface SyntaxProblem {
  readonly kind: 'ERROR' | 'MISSING';
  readonly line: number;
  readonly column: number;
  readonly text: string;
}

/** Every ERROR and MISSING node, with 1-based positions. */
export function syntaxProblems(file: BicepFile): SyntaxProblem[] {
  const problems: SyntaxProblem[] = [];
  const visit = (node: Node): void => {
    if (node.isError || node.isMissing) {
      problems.push({
        kind: node.isMissing ? 'MISSING' : 'ERROR',
        line: node.startPosition.row + 1,
        column: node.startPosition.column + 1,
        text: node.isMissing ? node.type : node.text.slice(0, 80),
      });
      return;
    }
    if (node.hasError) node.children.forEach(visit);
  };
  visit(file.root);
  return problems;
}

/** Files under a folder with one of the extensions, recursively, sorted. */
export function filesUnder(folder: string, extensions: readonly string[]): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => extensions.some((extension) => name.endsWith(extension)))
    .map((name) => join(folder, name))
    .sort();
}

/** A path relative to the repository root, for messages. */
export function fromRoot(path: string): string {
  return relative(ROOT, path);
}

/** The text of a string literal without interpolation, or undefined for anything else. */
export function literalString(node: Node | null | undefined): string | undefined {
  if (node?.type !== 'string' || node.namedChildren.some((child) => child.type === 'interpolation')) return undefined;
  return node.text.startsWith("'''") ? node.text.slice(3, -3) : node.text.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** The declarations of one kind at the top level (`parameter_declaration`, `resource_declaration`, …). */
export function declarations(file: BicepFile, type: string): Node[] {
  return file.root.namedChildren.filter((node) => node.type === type);
}

/** The declared name (the first identifier) of a declaration. */
export function declaredName(declaration: Node): string {
  const name = declaration.namedChildren.find((child) => child.type === 'identifier');
  if (name === undefined) throw new Error(`no name in ${declaration.text.slice(0, 60)}`);
  return name.text;
}

/** The decorators written right before a top-level declaration, as `name` → first argument node. */
export function decoratorsOf(declaration: Node): Map<string, Node | null> {
  const previous = declaration.previousNamedSibling;
  return previous?.type === 'decorators' ? readDecorators(previous) : new Map();
}

function readDecorators(decorators: Node, into = new Map<string, Node | null>()): Map<string, Node | null> {
  for (const decorator of decorators.namedChildren) {
    const call = decorator.namedChildren[0];
    const name = call?.childForFieldName('function')?.text.replace(/^sys\./, '');
    if (call && name) into.set(name, call.childForFieldName('arguments')?.namedChildren[0] ?? null);
  }
  return into;
}

/** The description of a declaration (or `undefined`). */
export function descriptionOf(declaration: Node): string | undefined {
  return literalString(decoratorsOf(declaration).get('description'));
}

/** A top-level declaration by kind and name. */
export function declaration(file: BicepFile, type: string, name: string): Node {
  const found = declarations(file, type).find((node) => declaredName(node) === name);
  if (found === undefined) throw new Error(`${fromRoot(file.path)} declares no ${type} ${name}`);
  return found;
}

/** The value expression of a `var`/`param`/`output`/`metadata` declaration (after `=`). */
export function assignedValue(declarationNode: Node): Node | undefined {
  const children = declarationNode.children;
  const equals = children.findIndex((child) => child.type === '=');
  return equals < 0 ? undefined : children.slice(equals + 1).find((child) => child.isNamed);
}

/** A resource or module: its symbol, its type string (or module path) and its body object. */
export interface Deployable {
  readonly symbol: string;
  readonly type: string;
  /** The object the declaration assigns (inside `[for …: {}]` or `if (…) {}` when there is one). */
  readonly body: Node;
  /** The `[for …]` node when the declaration is a loop. */
  readonly loop: Node | undefined;
  readonly node: Node;
}

/** Every resource (or module) declaration of a file. */
export function deployables(file: BicepFile, kind: 'resource_declaration' | 'module_declaration'): Deployable[] {
  return declarations(file, kind).map((node) => {
    const value = node.namedChildren.at(-1)!;
    const loop = value.type === 'for_statement' ? value : undefined;
    const inner = loop?.childForFieldName('body') ?? value;
    const body = inner.type === 'if_statement' ? inner.namedChildren.at(-1)! : inner;
    return { symbol: declaredName(node), type: literalString(node.namedChildren[1]) ?? '', body, loop, node };
  });
}

/** The resources of one type (the part before `@`). */
export function resourcesOfType(file: BicepFile, type: string): Deployable[] {
  return deployables(file, 'resource_declaration').filter((resource) => resource.type.split('@')[0] === type);
}

/** The key of an object property as written (identifier or quoted string). */
export function propertyKey(property: Node): string {
  const key = property.children[0]!;
  if (key.type === '*') return '*';
  return literalString(key) ?? key.text.replace(/\?$/, '');
}

/**
 * The decorators written before each property of an object (type declarations describe their
 * properties this way): property key → decorator name → first argument.
 */
export function propertyDecorators(object: Node): Map<string, Map<string, Node | null>> {
  const found = new Map<string, Map<string, Node | null>>();
  let pending = new Map<string, Node | null>();
  for (const child of object.namedChildren) {
    if (child.type === 'decorators') {
      readDecorators(child, pending);
    } else if (child.type === 'object_property') {
      found.set(propertyKey(child), pending);
      pending = new Map();
    }
  }
  return found;
}

/** The direct properties of an object node, key → value node. */
export function properties(object: Node): Map<string, Node> {
  const found = new Map<string, Node>();
  for (const property of object.namedChildren.filter((child) => child.type === 'object_property')) {
    const value = property.namedChildren.at(-1);
    if (value) found.set(propertyKey(property), value);
  }
  return found;
}

/** Follows a path of property names from an object node; `undefined` when a step is missing. */
export function at(object: Node | undefined, ...path: string[]): Node | undefined {
  let current = object;
  for (const key of path) {
    if (current?.type !== 'object') return undefined;
    current = properties(current).get(key);
  }
  return current;
}

/** Resolves an identifier to the value of a top-level `var` of the same file; other nodes unchanged. */
export function throughVariables(file: BicepFile, node: Node | undefined): Node | undefined {
  if (node?.type !== 'identifier') return node;
  const variable = declarations(file, 'variable_declaration').find((candidate) => declaredName(candidate) === node.text);
  return variable === undefined ? node : throughVariables(file, assignedValue(variable));
}

/**
 * The keys an object-valued expression has: an object literal, a `var` holding one, or
 * `union(…)` of those. Throws on anything else, so a test cannot silently check nothing.
 */
export function objectExpressionKeys(file: BicepFile, node: Node | undefined): string[] {
  const value = throughVariables(file, node);
  if (value?.type === 'object') return [...properties(value).keys()];
  if (value?.type === 'call_expression' && value.childForFieldName('function')?.text === 'union') {
    const args = value.childForFieldName('arguments')?.namedChildren ?? [];
    return [...new Set(args.flatMap((argument) => objectExpressionKeys(file, argument)))];
  }
  throw new Error(`cannot read the keys of ${value?.text.slice(0, 80) ?? 'nothing'} in ${fromRoot(file.path)}`);
}

/** The names of the `var`s a `union(…)` (or a single identifier) is built from. */
export function unionParts(node: Node | undefined): string[] {
  if (node?.type === 'identifier') return [node.text];
  if (node?.type === 'call_expression' && node.childForFieldName('function')?.text === 'union') {
    return (node.childForFieldName('arguments')?.namedChildren ?? []).flatMap(unionParts);
  }
  return [];
}

/** Calls of a function anywhere in the file whose first argument is a plain string: those strings. */
export function stringArgumentsOf(file: BicepFile, functionName: string): string[] {
  return file.root
    .descendantsOfType('call_expression')
    .filter((call) => call.childForFieldName('function')?.text === functionName)
    .map((call) => literalString(call.childForFieldName('arguments')?.namedChildren[0]))
    .filter((value): value is string => value !== undefined);
}

/** Every object property with this key anywhere in the file: the value nodes. */
export function propertiesNamed(file: BicepFile, key: string): Node[] {
  return file.root
    .descendantsOfType('object_property')
    .filter((property) => propertyKey(property) === key)
    .map((property) => property.namedChildren.at(-1)!);
}
