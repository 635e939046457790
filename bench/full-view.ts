import { buildAllowlist, type View } from '../shared/access/allowlist.js';
import { DATAPOINTS } from '../shared/access/datapoints.js';
import type { Resource } from '../shared/model/resources.js';

/** Every configured role: a caller with all of them sees every field, lines and Drafts. */
export const ALL_ROLES: readonly string[] = Object.keys(DATAPOINTS);

/** The widest view of a resource, built by the production allowlist. */
export function fullView(resource: Resource): View {
  return buildAllowlist(DATAPOINTS).view(resource, ALL_ROLES);
}
