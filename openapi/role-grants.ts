import { BASE_ROLE, type RoleDatapoints } from '../shared/access/datapoints.js';

type Datapoints = Readonly<Record<string, RoleDatapoints>>;

/** The roles whose datapoints include a field of a group (a resource's name, or its lines' grant), in configuration order. */
export function rolesGranting(datapoints: Datapoints, group: string, field: string): string[] {
  return Object.entries(datapoints)
    .filter(([, grant]) => Object.hasOwn(grant.fields, group) && grant.fields[group]!.includes(field))
    .map(([role]) => role);
}

/**
 * The sentence a field's description carries about who sees it, from the same configuration the
 * service enforces: a field nobody is granted says so, so the document cannot hide a gap.
 */
export function visibilityNote(datapoints: Datapoints, group: string, field: string): string {
  const roles = rolesGranting(datapoints, group, field);
  if (roles.length === 0) return 'No role grants this field: it is never returned.';
  const names = roles.map((role) => `\`${role}\``).join(' or ');
  return roles.includes(BASE_ROLE)
    ? `Visible to every caller (granted by ${names}).`
    : `Present only when the caller holds ${names}.`;
}

/** The roles that show a field, when the base role does not (undefined: everyone who may call sees it). */
export function gatingRoles(datapoints: Datapoints, group: string, field: string): string | undefined {
  const roles = rolesGranting(datapoints, group, field);
  return roles.includes(BASE_ROLE) ? undefined : roles.map((role) => `\`${role}\``).join(' or ');
}

/** The roles that make Draft records visible. */
export function draftRoles(datapoints: Datapoints): string[] {
  return Object.entries(datapoints).filter(([, grant]) => grant.drafts).map(([role]) => role);
}

/** "`Data.Read` shows a, b; `Data.Read.Financials` shows c" for one group, roles granting nothing left out. */
export function grantsSummary(datapoints: Datapoints, group: string): string {
  return Object.entries(datapoints)
    .filter(([, grant]) => (grant.fields[group] ?? []).length > 0)
    .map(([role, grant]) => `\`${role}\` shows ${grant.fields[group]!.join(', ')}`)
    .join('; ');
}
