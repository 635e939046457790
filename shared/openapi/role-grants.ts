import { BASE_ROLE, DATAPOINTS, type RoleDatapoints } from '../access/datapoints.js';

/** A group of fields the roles → datapoints configuration grants. */
export type FieldGroup = 'contracts' | 'invoices' | 'invoiceLines';

/** The roles whose datapoints include a field, in configuration order. */
export function rolesGranting(group: FieldGroup, field: string): string[] {
  return Object.entries(DATAPOINTS)
    .filter(([, grant]: [string, RoleDatapoints]) => grant[group].includes(field))
    .map(([role]) => role);
}

/**
 * The sentence a field's description carries about who sees it, from the same configuration the
 * service enforces: a field nobody is granted says so, so the document cannot hide a gap.
 */
export function visibilityNote(group: FieldGroup, field: string): string {
  const roles = rolesGranting(group, field);
  if (roles.length === 0) return 'No role grants this field: it is never returned.';
  const names = roles.map((role) => `\`${role}\``).join(' or ');
  return roles.includes(BASE_ROLE)
    ? `Visible to every caller (granted by ${names}).`
    : `Present only when the caller holds ${names}.`;
}

/** The roles that make records of the Draft status visible. */
export function draftRoles(): string[] {
  return Object.entries(DATAPOINTS).filter(([, grant]) => grant.drafts).map(([role]) => role);
}
