import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { SETTING_NAMES, settingDefaults } from '../../shared/config/load-config.js';
import {
  INFRA,
  ROOT,
  assignedValue,
  bicepparamAsBicep,
  at,
  declaration,
  declarations,
  declaredName,
  deployables,
  literalString,
  objectExpressionKeys,
  parseBicep,
  parseBicepFile,
  properties,
  resourcesOfType,
  throughVariables,
  unionParts,
  type BicepFile,
} from './bicep-tree.js';

/**
 * Local-only settings, absent in Azure on purpose (also said in function-app-settings.bicep):
 * COSMOS_KEY — Cosmos key auth is disabled there, the managed identity reads;
 * COSMOS_ALLOW_SELF_SIGNED_TLS — only for the embedded server's self-signed certificate on loopback;
 * EXPORTS_STORAGE__tenantId/__clientId/__clientSecret — the local identity provider's client; in Azure the managed identity.
 */
const LOCAL_ONLY = ['COSMOS_KEY', 'COSMOS_ALLOW_SELF_SIGNED_TLS', 'NODE_EXTRA_CA_CERTS', 'EXPORTS_STORAGE__tenantId', 'EXPORTS_STORAGE__clientId', 'EXPORTS_STORAGE__clientSecret'];
/** Not set in Azure because the service's default is what Azure wants (said in function-app-settings.bicep). */
const DEFAULT_IN_AZURE = ['LOG_REQUESTS'];
/** Locally a connection string; in Azure the identity-based form, which names no key. */
const RENAMED = { AzureWebJobsStorage: 'AzureWebJobsStorage__accountName' } as const;
/** Settings the platform needs that have no local counterpart. */
const PLATFORM_ONLY = [
  'FUNCTIONS_EXTENSION_VERSION',
  'APPLICATIONINSIGHTS_AUTHENTICATION_STRING',
  'WEBSITE_RUN_FROM_PACKAGE',
  'WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID',
];

const localSettings = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, 'local.settings.example.json'), 'utf8')) as { Values: Record<string, string> }).Values,
);

function expectedAzureKeys(local: readonly string[]): string[] {
  return local
    .filter((key) => !LOCAL_ONLY.includes(key) && !DEFAULT_IN_AZURE.includes(key))
    .map((key) => (key in RENAMED ? RENAMED[key as keyof typeof RENAMED] : key))
    .concat(PLATFORM_ONLY)
    .sort();
}

/** The app settings each `config/appsettings` resource of a file sets, by resource symbol. */
function appSettingKeys(file: BicepFile): Map<string, string[]> {
  const configs = [...resourcesOfType(file, 'Microsoft.Web/sites/config'), ...resourcesOfType(file, 'Microsoft.Web/sites/slots/config')]
    .filter((resource) => literalString(at(resource.body, 'name')) === 'appsettings');
  return new Map(configs.map((resource) => [resource.symbol, objectExpressionKeys(file, at(resource.body, 'properties')).sort()]));
}

let app: BicepFile;
let settings: BicepFile;
let plan: BicepFile;
let main: BicepFile;

beforeAll(async () => {
  app = await parseBicepFile(join(INFRA, 'modules/function-app.bicep'));
  settings = await parseBicepFile(join(INFRA, 'modules/function-app-settings.bicep'));
  plan = await parseBicepFile(join(INFRA, 'modules/app-service-plan.bicep'));
  main = await parseBicepFile(join(INFRA, 'main.bicep'));
});

describe('the function app and its uat slot', () => {
  it('has a slot named uat with its own system-assigned identity', () => {
    const [slot, ...others] = resourcesOfType(app, 'Microsoft.Web/sites/slots');
    expect(others).toEqual([]);
    expect(at(slot?.body, 'name')?.text).toBe('slotName');
    expect(literalString(assignedValue(declaration(app, 'parameter_declaration', 'slotName')))).toBe('uat');
    expect(literalString(assignedValue(declaration(main, 'variable_declaration', 'slotName')))).toBe('uat');
    expect(literalString(at(slot?.body, 'identity', 'type'))).toBe('SystemAssigned');
  });

  it.each(['Microsoft.Web/sites', 'Microsoft.Web/sites/slots'])('%s: Linux, Node 22, system identity, HTTPS only, TLS 1.2, gateway-only access', (type) => {
    const [site] = resourcesOfType(app, type);
    expect(literalString(at(site?.body, 'kind'))).toBe('functionapp,linux');
    expect(literalString(at(site?.body, 'identity', 'type'))).toBe('SystemAssigned');
    expect(at(site?.body, 'properties', 'httpsOnly')?.text).toBe('true');
    expect(at(site?.body, 'properties', 'reserved')?.text).toBe('true');
    const siteConfig = throughVariables(app, at(site?.body, 'properties', 'siteConfig'));
    const config = (key: string) => literalString(at(siteConfig, key)) ?? at(siteConfig, key)?.text;
    expect(config('linuxFxVersion')).toBe('Node|22');
    expect(config('minTlsVersion')).toBe('1.2');
    expect(config('ftpsState')).toBe('Disabled');
    expect(config('ipSecurityRestrictionsDefaultAction')).toBe('Deny');
    const rules = throughVariables(app, at(siteConfig, 'ipSecurityRestrictions'));
    expect(rules?.type).toBe('for_statement');
    expect(rules?.text).toMatch(/ in gatewayIpAddresses:/);
    expect(literalString(at(rules?.childForFieldName('body') ?? undefined, 'action'))).toBe('Allow');
  });

  it('admits only the API Management gateway addresses', () => {
    const module = deployables(main, 'module_declaration').find((candidate) => candidate.type === 'modules/function-app.bicep');
    expect(at(module?.body, 'params', 'gatewayIpAddresses')?.text).toBe('apiManagementService.outputs.publicIpAddresses');
  });

  it('runs on a Linux Elastic Premium plan (the Functions plan with deployment slots)', () => {
    const [servicePlan] = resourcesOfType(plan, 'Microsoft.Web/serverfarms');
    expect(literalString(at(servicePlan?.body, 'sku', 'tier'))).toBe('ElasticPremium');
    expect(at(servicePlan?.body, 'properties', 'reserved')?.text).toBe('true');
  });

  it('disables basic (publishing profile) credentials on the app and the slot', () => {
    for (const type of ['Microsoft.Web/sites/basicPublishingCredentialsPolicies', 'Microsoft.Web/sites/slots/basicPublishingCredentialsPolicies']) {
      const [policy] = resourcesOfType(app, type);
      expect(policy?.loop?.text).toMatch(/^\[for policy in \['scm', 'ftp'\]:/);
      expect(at(policy?.body, 'properties', 'allow')?.text).toBe('false');
    }
  });
});

describe('the app settings', () => {
  it('loadConfig reads only settings that local.settings.example.json lists', () => {
    expect(SETTING_NAMES.filter((name) => !localSettings.includes(name))).toEqual([]);
  });

  it('name exactly the keys of local.settings.example.json, less the local-only ones, plus the platform ones, in both slots', () => {
    const keys = appSettingKeys(settings);
    expect([...keys.keys()].sort()).toEqual(['appSettings', 'uatAppSettings']);
    for (const slotKeys of keys.values()) expect(slotKeys).toEqual(expectedAzureKeys(localSettings));
  });

  it('fail the comparison when local.settings.example.json gains a key Bicep lacks (the check can fail)', () => {
    const [slotKeys] = appSettingKeys(settings).values();
    expect(slotKeys).not.toEqual(expectedAzureKeys([...localSettings, 'NEW_SETTING']));
  });

  it('differ between the slots only in the sticky settings and the package, which moves with a swap', () => {
    const parts = resourcesOfType(settings, 'Microsoft.Web/sites/config')
      .concat(resourcesOfType(settings, 'Microsoft.Web/sites/slots/config'))
      .filter((resource) => literalString(at(resource.body, 'name')) === 'appsettings')
      .map((resource) => unionParts(at(resource.body, 'properties')));
    const perSlot = parts.flatMap((names) => names.filter((name) => !parts.every((other) => other.includes(name))));
    expect(perSlot.sort()).toEqual(['productionPackage', 'productionSlotSettings', 'uatPackage', 'uatSlotSettings']);
    const keysOf = (name: string) => objectExpressionKeys(settings, assignedValue(declaration(settings, 'variable_declaration', name))).sort();
    expect(keysOf('productionSlotSettings')).toEqual(keysOf('uatSlotSettings'));
    expect(keysOf('productionPackage')).toEqual(['WEBSITE_RUN_FROM_PACKAGE']);
    expect(keysOf('uatPackage')).toEqual(['WEBSITE_RUN_FROM_PACKAGE']);

    const [sticky] = resourcesOfType(settings, 'Microsoft.Web/sites/config').filter((resource) => literalString(at(resource.body, 'name')) === 'slotConfigNames');
    const names = at(sticky?.body, 'properties', 'appSettingNames')?.namedChildren.map((node) => literalString(node));
    expect(names?.sort()).toEqual(keysOf('productionSlotSettings'));
    expect(names?.sort()).toEqual(['API_KEYS', 'AzureWebJobsStorage__accountName', 'CLIENT_REGISTRY', 'COSMOS_ENDPOINT', 'EXPORTS_STORAGE__blobServiceUri', 'EXPORTS_STORAGE__queueServiceUri', 'PUBLIC_BASE_URL']);
  });

  it('give both slots PUBLIC_BASE_URL, the gateway base URL as the API module outputs it', async () => {
    const value = assignedValue(declaration(main, 'variable_declaration', 'publicBaseUrl'))?.text;
    expect(value).toBe("'${apiManagementService.outputs.gatewayUrl}/${workload}'");
    const api = deployables(main, 'module_declaration').find((candidate) => candidate.symbol === 'apiManagementApi')!;
    expect(at(api.body, 'params', 'apiPath')?.text).toBe('workload');
    const apiModule = await parseBicepFile(join(INFRA, 'modules/api-management-api.bicep'));
    expect(assignedValue(declaration(apiModule, 'output_declaration', 'baseUrl'))?.text).toBe("'${service.properties.gatewayUrl}/${api.properties.path}'");
    const module = deployables(main, 'module_declaration').find((candidate) => candidate.symbol === 'functionAppSettings')!;
    expect([at(module.body, 'params', 'publicBaseUrl')?.text, at(module.body, 'params', 'uatPublicBaseUrl')?.text]).toEqual(['publicBaseUrl', 'publicBaseUrl']);
  });

  it('keep the package each slot runs across infrastructure deployments (the pipeline sets it)', () => {
    for (const [name, resource] of [['productionPackage', 'functionApp'], ['uatPackage', 'uatSlot']] as const) {
      const value = at(assignedValue(declaration(settings, 'variable_declaration', name)), 'WEBSITE_RUN_FROM_PACKAGE');
      expect(value?.text).toBe(`list('\${${resource}.id}/config/appsettings', '2023-12-01').properties.?WEBSITE_RUN_FROM_PACKAGE ?? ''`);
    }
  });

  it('hold no key: storage is identity-based and the backend API keys are Key Vault references', () => {
    // Each slot's own host storage, by account name (identity-based).
    expect(at(assignedValue(declaration(settings, 'variable_declaration', 'productionSlotSettings')), 'AzureWebJobsStorage__accountName')?.text).toBe('storageAccountName');
    expect(at(assignedValue(declaration(settings, 'variable_declaration', 'uatSlotSettings')), 'AzureWebJobsStorage__accountName')?.text).toBe('uatStorageAccountName');
    for (const name of ['productionSlotSettings', 'uatSlotSettings']) {
      const value = at(assignedValue(declaration(settings, 'variable_declaration', name)), 'API_KEYS');
      expect(value?.text).toMatch(/^'@Microsoft\.KeyVault\(SecretUri=\$\{[A-Za-z]+\}\)'$/);
    }
    const values = ['platformSettings', 'serviceSettings', 'productionSlotSettings', 'uatSlotSettings', 'productionPackage', 'uatPackage']
      .map((name) => assignedValue(declaration(settings, 'variable_declaration', name))?.text ?? '');
    for (const value of values) expect(value).not.toMatch(/AccountKey|listKeys|connectionStrings|SharedAccessSignature|sig=/i);
  });

  it('are read by the key-sets reader from literals, vars and union() alike', async () => {
    const file = await parseBicep("var a = { A: 1 }\nvar b = { 'B-1': 2 }\nresource r 'Microsoft.Web/sites/config@2023-12-01' = {\n  name: 'appsettings'\n  properties: union(a, b, { C: 3 })\n}\n");
    expect(appSettingKeys(file)).toEqual(new Map([['r', ['A', 'B-1', 'C']]]));
    expect(properties(assignedValue(declaration(file, 'variable_declaration', 'b'))!).has('B-1')).toBe(true);
  });
});

/** `SETTING: string(serviceLimits.?limit ?? fallback)` entries of serviceSettings: one optional limit each. */
function limitSettings(file: BicepFile): { setting: string; limit: string; fallback: string }[] {
  const shared = assignedValue(declaration(file, 'variable_declaration', 'serviceSettings'))!;
  return [...properties(shared)].flatMap(([setting, value]) => {
    const match = /^string\(serviceLimits\.\?([A-Za-z]+) \?\? (.+)\)$/.exec(value.text);
    return match ? [{ setting, limit: match[1]!, fallback: match[2]! }] : [];
  });
}

describe('the service defaults in the templates', () => {
  it('are the ones loadConfig applies wherever Bicep falls back to one', () => {
    const limits = limitSettings(settings);
    expect(limits.map((limit) => limit.setting).sort()).toEqual(['AUTH_CLOCK_TOLERANCE_SECONDS', 'DELTA_TOKEN_DAYS', 'EXPORT_JOBS_PER_CLIENT', 'EXPORT_JOBS_PER_SERVICE', 'EXPORT_JOBS_PER_TENANT', 'EXPORT_JOB_TTL_SECONDS', 'EXPORT_MAX_MONTHS', 'EXPORT_WINDOWS_PER_SERVICE', 'EXPORT_WINDOWS_PER_TENANT', 'MAX_PAGE_SIZE', 'MAX_RESULT_WINDOW', 'PARQUET_MAX_BYTES', 'STORE_TIMEOUT_MS']);
    for (const { setting, fallback } of limits) expect([setting, fallback]).toEqual([setting, String(settingDefaults()[setting])]);
  });

  it('are not restated as literal settings that equal them', () => {
    const shared = assignedValue(declaration(settings, 'variable_declaration', 'serviceSettings'))!;
    for (const [setting, value] of properties(shared)) {
      const literal = literalString(value);
      if (literal !== undefined && setting in settingDefaults()) expect([setting, literal]).not.toEqual([setting, String(settingDefaults()[setting])]);
    }
  });

  it('are not repeated in prod.bicepparam: a UAT limit is there only when it differs from the default', async () => {
    const file = await parseBicep(bicepparamAsBicep(readFileSync(join(INFRA, 'prod.bicepparam'), 'utf8')));
    const chosen = declarations(file, 'variable_declaration').find((node) => declaredName(node) === 'serviceLimits');
    const settingOf = new Map(limitSettings(settings).map((limit) => [limit.limit, limit.setting]));
    for (const [limit, value] of chosen ? properties(assignedValue(chosen)!) : []) {
      const setting = settingOf.get(limit);
      expect([limit, setting]).toEqual([limit, expect.any(String)]);
      expect([limit, value.text]).not.toEqual([limit, String(settingDefaults()[setting!])]);
    }
  });

  it('are read from the code: a default the code changes is seen here (the check can fail)', () => {
    expect(settingDefaults()).toMatchObject({ MAX_PAGE_SIZE: expect.any(Number), LOG_REQUESTS: true, AUTH_AUTHORITY_HOST: 'https://login.microsoftonline.com' });
    expect(settingDefaults()).not.toHaveProperty('COSMOS_KEY');
    expect(settingDefaults()).not.toHaveProperty('API_KEYS');
  });
});
