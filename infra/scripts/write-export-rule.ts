/** `npm run infra:gateway`: writes the gateway's export rule into the API policy (see render-export-rule.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { POLICY_PATH, withExportRule } from './render-export-rule.js';

const target = new URL(`../../../${POLICY_PATH}`, import.meta.url);
writeFileSync(target, withExportRule(readFileSync(target, 'utf8')));
console.log(`wrote the export rule into ${POLICY_PATH}`);
