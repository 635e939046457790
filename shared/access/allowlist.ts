import { INVOICE_LINE_FIELDS, RECORD_FIELDS, SORTABLE_FIELDS, type FieldSpec, type Resource } from '../model/resources.js';
import { BASE_ROLE, type RoleDatapoints } from './datapoints.js';

/** What a set of roles may see of one resource: fields in response order, and whether Drafts show. */
export interface View {
  readonly resource: Resource;
  readonly fields: readonly FieldSpec[];
  /** Invoice line fields (empty for contracts). */
  readonly lineFields: readonly FieldSpec[];
  readonly sortable: readonly string[];
  readonly drafts: boolean;
}

/** Resolves role sets to views. Built once from the configuration, which it validates. */
export interface Allowlist {
  view(resource: Resource, roles: readonly string[]): View;
}

/**
 * Validates the roles → datapoints configuration against the model and returns the resolver.
 * Throws a TypeError naming the bad entry: start-up stops on it.
 */
export function buildAllowlist(datapoints: Readonly<Record<string, RoleDatapoints>>): Allowlist {
  if (!datapoints[BASE_ROLE]) throw new TypeError(`datapoints: the base role ${BASE_ROLE} is not configured`);
  for (const [role, grant] of Object.entries(datapoints)) {
    checkFields(role, 'contracts', grant.contracts, RECORD_FIELDS.contracts);
    checkFields(role, 'invoices', grant.invoices, RECORD_FIELDS.invoices);
    checkFields(role, 'invoiceLines', grant.invoiceLines, INVOICE_LINE_FIELDS);
  }

  return {
    view(resource, roles) {
      const grants = roles.flatMap((role) => (Object.hasOwn(datapoints, role) ? [datapoints[role]!] : []));
      const visible = new Set(grants.flatMap((grant) => grant[resource]));
      const visibleLines = new Set(resource === 'invoices' ? grants.flatMap((grant) => grant.invoiceLines) : []);
      const fields = RECORD_FIELDS[resource].filter((field) => visible.has(field.name));
      return {
        resource,
        fields,
        lineFields: INVOICE_LINE_FIELDS.filter((field) => visibleLines.has(field.name)),
        sortable: SORTABLE_FIELDS[resource].filter((name) => visible.has(name)),
        drafts: grants.some((grant) => grant.drafts),
      };
    },
  };
}

function checkFields(role: string, group: string, names: readonly string[], model: readonly FieldSpec[]): void {
  for (const name of names) {
    if (!model.some((field) => field.name === name)) {
      throw new TypeError(`datapoints: role ${role} grants unknown ${group} field "${name}"`);
    }
  }
}
