import { filterMembers } from '../../shared/filters/filter-members.js';
import type { View } from '../../shared/model/view.js';

/** A view and the members of its resource, as an endpoint passes them to parseFilters. */
export function viewed(view: View) {
  return { view, members: filterMembers(view.resource) };
}
