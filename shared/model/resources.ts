/**
 * The resources the service exposes. Every layer loops over this list; nothing else names a
 * resource. A resource is added by writing its definition and listing it here.
 */
import { CONTRACTS } from './contracts.js';
import { INVOICES } from './invoices.js';
import type { ResourceDefinition } from './resource-definition.js';

/** All resources, in a stable order (the order of the OpenAPI paths and of function registration). */
export const RESOURCES: readonly ResourceDefinition[] = Object.freeze([CONTRACTS, INVOICES]);

/** The Cosmos database that holds every container. */
export const DATABASE_ID = 'summary';

/** The resource with this name (a path segment, a bench or test argument). Throws a TypeError for another name. */
export function resourceNamed(name: string): ResourceDefinition {
  const resource = RESOURCES.find((candidate) => candidate.name === name);
  if (!resource) throw new TypeError(`no resource named ${name}; the resources are ${RESOURCES.map((r) => r.name).join(', ')}`);
  return resource;
}
