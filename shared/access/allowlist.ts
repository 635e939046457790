import type { FieldSpec } from '../model/fields.js';
import { fieldGroups, type ResourceDefinition } from '../model/resource-definition.js';
import { RESOURCES } from '../model/resources.js';
import type { View } from '../model/view.js';
import { BASE_ROLE, type RoleDatapoints } from './datapoints.js';

/** Resolves role sets to views. Built once from the configuration, which it validates. */
export interface Allowlist {
  view(resource: ResourceDefinition, roles: readonly string[]): View;
}

/**
 * Validates the roles → datapoints configuration against the resource definitions and returns the
 * resolver. Throws a TypeError naming the bad entry: start-up stops on it.
 */
export function buildAllowlist(
  datapoints: Readonly<Record<string, RoleDatapoints>>,
  resources: readonly ResourceDefinition[] = RESOURCES,
): Allowlist {
  if (!Object.hasOwn(datapoints, BASE_ROLE)) throw new TypeError(`datapoints: the base role ${BASE_ROLE} is not configured`);
  const groups = new Map(resources.flatMap((resource) => [...fieldGroups(resource)]));
  for (const [role, grant] of Object.entries(datapoints)) {
    for (const [group, names] of Object.entries(grant.fields)) {
      const model = groups.get(group);
      if (!model) throw new TypeError(`datapoints: role ${role} grants fields of an unknown group "${group}"`);
      const unknown = names.find((name) => !model.some((field) => field.name === name));
      if (unknown !== undefined) throw new TypeError(`datapoints: role ${role} grants unknown ${group} field "${unknown}"`);
    }
  }

  return {
    view(resource, roles) {
      const grants = roles.flatMap((role) => (Object.hasOwn(datapoints, role) ? [datapoints[role]!] : []));
      const visibleIn = (group: string | undefined, fields: readonly FieldSpec[]) => {
        if (group === undefined) return [];
        const visible = new Set(grants.flatMap((grant) => (Object.hasOwn(grant.fields, group) ? grant.fields[group]! : [])));
        return Object.freeze(fields.filter((field) => visible.has(field.name)));
      };
      const fields = visibleIn(resource.name, resource.fields);
      return Object.freeze({
        resource,
        fields,
        lineFields: visibleIn(resource.lines?.grant, resource.lines?.fields ?? []),
        sortable: Object.freeze(resource.sortable.filter((name) => fields.some((field) => field.name === name))),
        drafts: grants.some((grant) => grant.drafts),
      });
    },
  };
}
