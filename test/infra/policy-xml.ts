/**
 * Reads API Management policy files: checks they are well-formed XML (fast-xml-parser's validator)
 * and turns them into a small element tree the tests can query. Policy expressions (`@(...)`) and
 * named values (`{{name}}`) are plain text to XML; API Management evaluates them, not this.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** One element: name, attributes, child elements and its own text. */
export interface Element {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly Element[];
  readonly text: string;
}

/** `true`, or the validator's error (code, message, line). */
export function validateXml(source: string): true | { code: string; msg: string; line: number } {
  const result = XMLValidator.validate(source);
  return result === true ? true : result.err;
}

type Ordered = Record<string, unknown>;

function toElement(node: Ordered): Element | undefined {
  const name = Object.keys(node).find((key) => key !== ':@');
  if (name === undefined || name.startsWith('#')) return undefined;
  const rawAttributes = (node[':@'] ?? {}) as Record<string, unknown>;
  const attributes = Object.fromEntries(Object.entries(rawAttributes).map(([key, value]) => [key.replace(/^@_/, ''), String(value)]));
  const content = (node[name] ?? []) as Ordered[];
  const children = content.map(toElement).filter((child): child is Element => child !== undefined);
  const text = content.filter((child) => '#text' in child).map((child) => String(child['#text'])).join('');
  return { name, attributes, children, text };
}

/** Parses a policy document into its root element (`policies`). */
export function parsePolicy(source: string): Element {
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: true,
    commentPropName: '#comment',
  });
  const roots = (parser.parse(source) as Ordered[]).map(toElement).filter((element): element is Element => element !== undefined);
  if (roots.length !== 1) throw new Error(`expected one root element, found ${roots.length}`);
  return roots[0]!;
}

/** Every descendant (and the element itself) with this name, in document order. */
export function findAll(element: Element, name: string): Element[] {
  const found: Element[] = element.name === name ? [element] : [];
  for (const child of element.children) found.push(...findAll(child, name));
  return found;
}

/** The one direct child with this name. */
export function child(element: Element, name: string): Element {
  const matches = element.children.filter((candidate) => candidate.name === name);
  if (matches.length !== 1) throw new Error(`<${element.name}> has ${matches.length} <${name}> children`);
  return matches[0]!;
}

/** All text in an element and its descendants. */
export function allText(element: Element): string {
  return element.text + element.children.map(allText).join('');
}

/** Every `{{name}}` a text refers to. */
export function namedValueReferences(text: string): string[] {
  return [...text.matchAll(/\{\{([A-Za-z0-9._-]+)\}\}/g)].map((match) => match[1]!);
}
