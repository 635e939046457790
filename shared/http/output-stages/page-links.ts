/**
 * Next links of JSON pages (docs/decisions.md, "Next links"): what a client that cannot change the
 * body between pages (Data Factory, Fabric, Power Query, got) follows. A link is the public base
 * URL (a setting, never a request's Host or X-Forwarded-*), the operation's path, every filter and
 * order the request was answered with, in the query form the contract allows (the body's members,
 * then the query's the body does not override; never `page`, `pageSize` or the Functions key
 * `code`), then `page` and `pageSize`. So a link is self-contained: followed with an empty body it
 * answers the next page of the same result, and with the same body too (the body wins where both
 * are given, with the same values). A body that carries `page` gets no links at all: following one
 * with that body would answer the same page for ever.
 */
import { RESERVED_QUERY } from '../../filters/parse-filters.js';
import type { Pagination } from '../../output/pagination.js';
import { PAGINATION_MEMBERS } from '../../filters/filter-members.js';

/** Where the links of one walk start: only when the service knows its public base URL. */
export interface LinkBase {
  /** `<PUBLIC_BASE_URL>/v1/<resource>/summary`. */
  readonly operationUrl: string;
  /** What every link carries of the request: its body's members and the query parameters the body does not override, less page, pageSize and code. */
  readonly query: URLSearchParams;
}

/** The `Link` header (RFC 8288) and the next page's URL, which `pagination.nextLink` repeats. */
export interface PageLinks {
  readonly header: string;
  readonly next: string | undefined;
}

/**
 * The links' start for a JSON request, or none: without a public base URL (a deployment that does
 * not say where callers reach it) and when the body carries `page`.
 */
export function linkBase(publicBaseUrl: string | undefined, operationPath: string, query: URLSearchParams, body: unknown): LinkBase | undefined {
  if (publicBaseUrl === undefined) return undefined;
  const members = typeof body === 'object' && body !== null ? body : {};
  if (Object.hasOwn(members, 'page')) return undefined;
  const carried = new URLSearchParams();
  // The body's filters and order, as the query form of the same members (every one is text).
  for (const [name, value] of Object.entries(members)) if (!NOT_CARRIED.has(name) && typeof value === 'string') carried.append(name, value);
  // A query parameter the body overrides was never read (the body wins): it is not carried.
  for (const [name, value] of query) if (!NOT_CARRIED.has(name) && !Object.hasOwn(members, name)) carried.append(name, value);
  return { operationUrl: `${publicBaseUrl}${operationPath}`, query: carried };
}

const NOT_CARRIED: ReadonlySet<string> = new Set([...PAGINATION_MEMBERS, ...RESERVED_QUERY]);

/**
 * `first` always; `next` when the page has a reachable next one (pagination.ts; respond-json.ts
 * answers 503 rather than end a walk that could go on); `last` only when a jump reaches it, never
 * a link that answers 400.
 */
export function pageLinks(base: LinkBase, page: Pagination): PageLinks {
  const prefix = base.query.size > 0 ? `${base.operationUrl}?${base.query.toString()}&` : `${base.operationUrl}?`;
  const urlOf = (target: number) => `${prefix}page=${target}&pageSize=${page.pageSize}`;
  const next = page.hasNext ? urlOf(page.page + 1) : undefined;
  const links = [next === undefined ? undefined : `<${next}>; rel="next"`, `<${urlOf(1)}>; rel="first"`];
  if (page.lastReachable) links.push(`<${urlOf(page.totalPages)}>; rel="last"`);
  return { header: links.filter((link) => link !== undefined).join(', '), next };
}
