/** `npm run infra:containers`: writes the Cosmos container document Bicep loads (see render-cosmos-containers.ts). */
import { writeFileSync } from 'node:fs';
import { COSMOS_CONTAINERS_PATH, renderCosmosContainers } from './render-cosmos-containers.js';

const target = new URL(`../../../${COSMOS_CONTAINERS_PATH}`, import.meta.url);
writeFileSync(target, renderCosmosContainers());
console.log(`wrote ${COSMOS_CONTAINERS_PATH}`);
