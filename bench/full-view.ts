import { buildAllowlist } from '../shared/access/allowlist.js';
import { DATAPOINTS } from '../shared/access/datapoints.js';
import { resourceNamed } from '../shared/model/resources.js';
import type { View } from '../shared/model/view.js';

/** Every configured role: a caller with all of them sees every field, lines and Drafts. */
export const ALL_ROLES: readonly string[] = Object.keys(DATAPOINTS);

/** The widest view of a resource, built by the production allowlist. */
export function fullView(resource: string): View {
  return buildAllowlist(DATAPOINTS).view(resourceNamed(resource), ALL_ROLES);
}

/** The dev client every benchmark call is made as: all roles, so every field is projected. */
export const BENCH_CLIENT = 'contoso-full';
