import { exportMediaTypes, mediaTypeOf, type Format } from '../model/operation-contract.js';
import type { ResourceDefinition } from '../model/resource-definition.js';

interface Range {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/** A media type the caller may ask for, and the format that answers it. */
export interface Offer {
  readonly format: Format;
  readonly mediaType: string;
}

/**
 * What a resource answers: JSON, and its export under the Parquet media type and, when the export
 * is not one Parquet file (a zip), under its own media type too.
 */
export function resourceOffers(resource: ResourceDefinition): Offer[] {
  return [{ format: 'json', mediaType: mediaTypeOf('json') }, ...exportMediaTypes(resource).map((mediaType) => ({ format: 'parquet' as const, mediaType }))];
}

/**
 * Picks the response format from an `Accept` header with q-values (RFC 9110 §12.5.1): the offer
 * with the highest q, the most specific range deciding each media type's q; JSON wins ties and
 * answers a missing header. A format may be offered under several media types (the invoices' zip
 * export is `application/vnd.apache.parquet` and `application/zip`). Returns the offer chosen (its
 * format and the media type it was chosen under), undefined when nothing acceptable is offered.
 */
export function negotiateOffer(accept: string | null, available: readonly Offer[]): Offer | undefined {
  if (accept === null || trimOws(accept) === '') return available.find((offer) => offer.format === 'json') ?? available[0];
  const ranges = accept.split(',').map(parseRange).filter((range): range is Range => range !== undefined);
  let best: { offer: Offer; q: number } | undefined;
  for (const offer of available) {
    const q = qualityOf(offer.mediaType, ranges);
    if (q > 0 && (best === undefined || q > best.q)) best = { offer, q };
  }
  return best?.offer;
}

/** A media range: type and subtype tokens (matched case-insensitively). */
export const MEDIA_RANGE_PATTERN = /^([a-z0-9!#$%&'*+.^_`|~-]+)\/([a-z0-9!#$%&'*+.^_`|~-]+)$/i;
/** A q value the negotiation takes (any other counts as 0). */
export const QUALITY_PATTERN = /^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$/;

/** Removes HTTP's optional white space (space and tab, RFC 9110 §5.6.3) from both ends, nothing else. */
function trimOws(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

function parseRange(text: string): Range | undefined {
  const [mediaRange, ...params] = text.split(';').map(trimOws);
  const match = MEDIA_RANGE_PATTERN.exec(mediaRange ?? '');
  if (!match) return undefined;
  let q = 1;
  for (const param of params) {
    const [name, value] = param.split('=').map(trimOws);
    if (name?.toLowerCase() === 'q') {
      q = QUALITY_PATTERN.test(value ?? '') ? Number(value) : 0;
    }
  }
  return { type: match[1]!.toLowerCase(), subtype: match[2]!.toLowerCase(), q };
}

/** The q of the most specific range matching a media type (0 when none does). */
function qualityOf(mediaType: string, ranges: readonly Range[]): number {
  const [type, subtype] = mediaType.split('/');
  let specificity = -1;
  let q = 0;
  for (const range of ranges) {
    const matches = (range.type === '*' || range.type === type) && (range.subtype === '*' || range.subtype === subtype);
    const rank = range.type === '*' ? 0 : range.subtype === '*' ? 1 : 2;
    if (matches && rank > specificity) {
      specificity = rank;
      q = range.q;
    }
  }
  return q;
}
