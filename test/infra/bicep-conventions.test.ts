import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  INFRA,
  assignedValue,
  bicepparamAsBicep,
  declarations,
  declaredName,
  decoratorsOf,
  deployables,
  descriptionOf,
  filesUnder,
  fromRoot,
  literalString,
  parseBicep,
  parseBicepFile,
  properties,
  propertyDecorators,
  stringArgumentsOf,
  type BicepFile,
  type Node,
} from './bicep-tree.js';

const PREFIX = /^(Required|Optional|Conditional)\. \S/;

const templates = filesUnder(INFRA, ['.bicep']);
const files = new Map<string, BicepFile>();
let main: BicepFile;

beforeAll(async () => {
  for (const path of templates) files.set(path, await parseBicepFile(path));
  main = files.get(join(INFRA, 'main.bicep'))!;
});

/** A parameter: whether it has a default or a nullable type (then it may be omitted). */
function parameters(file: BicepFile): { name: string; optional: boolean; node: Node }[] {
  return declarations(file, 'parameter_declaration').map((node) => ({
    name: declaredName(node),
    optional: node.children.some((child) => child.type === '=') || node.descendantsOfType('nullable_type').length > 0,
    node,
  }));
}

function parameterDescriptions(path: string): string[] {
  const file = files.get(path)!;
  return parameters(file).map(({ name, optional, node }) => {
    const description = descriptionOf(node);
    if (description === undefined) return `${name}: no @description`;
    if (!PREFIX.test(description)) return `${name}: "${description}" does not start with Required./Optional./Conditional.`;
    if (description.startsWith('Required.') && optional) return `${name}: Required but has a default`;
    if (description.startsWith('Optional.') && !optional) return `${name}: Optional but has no default`;
    return 'ok';
  });
}

describe.each(templates.map((path) => [fromRoot(path), path]))('%s (AVM style)', (_name, path) => {
  it('opens with metadata name and description', () => {
    const metadata = declarations(files.get(path)!, 'metadata_declaration').map(declaredName);
    expect(metadata).toEqual(expect.arrayContaining(['name', 'description']));
  });

  it('describes every parameter with Required./Optional./Conditional., matching whether it has a default', () => {
    expect(parameterDescriptions(path).filter((result) => result !== 'ok')).toEqual([]);
  });

  it('describes every output', () => {
    const outputs = declarations(files.get(path)!, 'output_declaration');
    expect(outputs.filter((output) => !descriptionOf(output)).map(declaredName)).toEqual([]);
  });

  it('describes every property of its user-defined types with Required./Optional./Conditional.', () => {
    const problems = declarations(files.get(path)!, 'type_declaration').flatMap((type) => {
      const object = type.namedChildren.find((child) => child.type === 'object');
      if (object === undefined) return [];
      return [...propertyDecorators(object)].flatMap(([key, decorators]) => {
        const description = literalString(decorators.get('description'));
        return description !== undefined && PREFIX.test(description) ? [] : [`${declaredName(type)}.${key}`];
      });
    });
    expect(problems).toEqual([]);
  });

  it('uses every parameter and variable it declares (bicepconfig.json makes the linter agree)', () => {
    const file = files.get(path)!;
    const declared = [...declarations(file, 'parameter_declaration'), ...declarations(file, 'variable_declaration')];
    const uses = new Map<string, number>();
    for (const identifier of file.root.descendantsOfType('identifier')) {
      const isPropertyKey = identifier.parent?.type === 'object_property' && identifier.parent.children[0]?.equals(identifier);
      if (!isPropertyKey) uses.set(identifier.text, (uses.get(identifier.text) ?? 0) + 1);
    }
    // The declaration's own name is one occurrence; a use is any other (an object key is not a use).
    expect(declared.map(declaredName).filter((name) => (uses.get(name) ?? 0) < 2)).toEqual([]);
  });

  it('refers only to files that exist (modules, imports, loadTextContent, loadJsonContent)', () => {
    const file = files.get(path)!;
    const referenced = [
      ...deployables(file, 'module_declaration').map((module) => module.type),
      ...declarations(file, 'import_functionality').map((node) => literalString(node.namedChildren.at(-1)) ?? ''),
      ...stringArgumentsOf(file, 'loadTextContent'),
      ...stringArgumentsOf(file, 'loadJsonContent'),
    ];
    const missing = referenced.filter((target) => !existsSync(resolve(dirname(path), target)));
    expect(missing).toEqual([]);
  });
});

describe('the parameter check', () => {
  it('rejects an undescribed parameter and a Required one with a default (it can fail)', async () => {
    const file = await parseBicep("param a string\n@description('Required. B.')\nparam b string = 'x'\n@description('Optional. C.')\nparam c string?\n");
    files.set('<inline>', file);
    expect(parameterDescriptions('<inline>')).toEqual(['a: no @description', 'b: Required but has a default', 'ok']);
    files.delete('<inline>');
  });
});

describe('main.bicep', () => {
  it('composes modules named after what they create, each file used', () => {
    const used = deployables(main, 'module_declaration').map((module) => resolve(INFRA, module.type));
    const modules = templates.filter((path) => path.includes('/modules/'));
    expect(modules.filter((path) => !used.includes(path)).map(fromRoot)).toEqual([]);
  });

  it.each(['main.bicep', 'sandbox.bicep'])('%s passes each module only parameters it declares, and every parameter it requires', (name) => {
    const composer = files.get(join(INFRA, name))!;
    const problems = deployables(composer, 'module_declaration').flatMap((module) => {
      const target = files.get(resolve(INFRA, module.type))!;
      const declared = parameters(target);
      const params = properties(module.body).get('params');
      const passed = params ? [...properties(params).keys()] : [];
      return [
        ...passed.filter((name) => !declared.some((parameter) => parameter.name === name)).map((name) => `${module.symbol}: unknown ${name}`),
        ...declared.filter((parameter) => !parameter.optional && !passed.includes(parameter.name)).map((parameter) => `${module.symbol}: missing ${parameter.name}`),
      ];
    });
    expect(problems).toEqual([]);
  });

  it.each(['main.bicep', 'sandbox.bicep'])('%s reads only outputs its modules declare', (name) => {
    const composer = files.get(join(INFRA, name))!;
    const modules = new Map(deployables(composer, 'module_declaration').map((module) => [module.symbol, files.get(resolve(INFRA, module.type))!]));
    const read = composer.root.descendantsOfType('member_expression').flatMap((member) => {
      const outputs = member.childForFieldName('object');
      const module = outputs?.childForFieldName('object')?.text;
      if (outputs?.type !== 'member_expression' || outputs.childForFieldName('property')?.text !== 'outputs' || !module || !modules.has(module)) return [];
      return [{ module, output: member.childForFieldName('property')!.text }];
    });
    expect(read.length).toBeGreaterThan(5);
    const unknown = read.filter(({ module, output }) => !declarations(modules.get(module)!, 'output_declaration').some((node) => declaredName(node) === output));
    expect(unknown).toEqual([]);
  });

  it('names resources deterministically from a resource token and the abbreviations', () => {
    const token = assignedValue(declarations(main, 'variable_declaration').find((node) => declaredName(node) === 'resourceToken')!);
    expect(token?.text).toMatch(/^toLower\(uniqueString\(subscription\(\)\.id, resourceGroup\(\)\.id, environmentName, location\)\)$/);
    const names = assignedValue(declarations(main, 'variable_declaration').find((node) => declaredName(node) === 'names')!)!;
    for (const value of properties(names).values()) expect(value.text).toMatch(/^'\$\{abbreviations\.[A-Za-z]+\}.*\$\{resourceToken\}'$/);
  });

  it('outputs the gateway base URL, the function app and slot names and the Cosmos endpoint', () => {
    const outputs = declarations(main, 'output_declaration').map(declaredName);
    expect(outputs).toEqual(expect.arrayContaining(['gatewayBaseUrl', 'functionAppName', 'functionAppSlotName', 'cosmosEndpoint']));
  });

  it('marks the API keys parameters @secure', () => {
    const secure = declarations(main, 'parameter_declaration').filter((node) => decoratorsOf(node).has('secure')).map(declaredName);
    expect(secure).toEqual(['backendApiKeys', 'uatBackendApiKeys']);
  });
});

const PARAMETER_FILES = filesUnder(INFRA, ['.bicepparam']);

/** The string-literal union types of types.bicep (`type x = 'a' | 'b'`): type name → its members. */
function literalUnions(): Map<string, string[]> {
  const source = readFileSync(join(INFRA, 'types.bicep'), 'utf8');
  return new Map([...source.matchAll(/^type (\w+) = ('[^'\n]*'(?:\s*\|\s*'[^'\n]*')+)\s*$/gm)]
    .map((match) => [match[1]!, [...match[2]!.matchAll(/'([^']*)'/g)].map((member) => member[1]!)]));
}

/** The template a parameter file is for: its `using` path. */
function templateOf(path: string): BicepFile {
  const using = /^using '([^']+)'$/m.exec(readFileSync(join(INFRA, path), 'utf8'))?.[1];
  if (using === undefined) throw new Error(`${path} has no using line`);
  return files.get(resolve(INFRA, using))!;
}

describe('the environments are parameter files of one typed parameter set', () => {
  const settings = async (name: string) => {
    const file = await parseBicep(bicepparamAsBicep(readFileSync(join(INFRA, name), 'utf8')));
    return new Map(declarations(file, 'variable_declaration').map((node) => [declaredName(node), assignedValue(node)!]));
  };

  it('are production (with its uat slot) and the azd sandbox; uat is a slot, not a file', () => {
    expect(PARAMETER_FILES.map(fromRoot)).toEqual(['infra/prod.bicepparam', 'infra/sandbox.bicepparam']);
    expect(templateOf('prod.bicepparam')).toBe(main);
    expect(templateOf('sandbox.bicepparam')).toBe(files.get(join(INFRA, 'sandbox.bicep')));
  });

  it.each(PARAMETER_FILES.map(fromRoot))('%s sets only parameters its template declares, every one it requires, and reads secrets from the environment', async (path) => {
    const set = await settings(path.replace('infra/', ''));
    const template = templateOf(path.replace('infra/', ''));
    const declared = parameters(template);
    expect([...set.keys()].filter((name) => !declared.some((parameter) => parameter.name === name))).toEqual([]);
    expect(declared.filter((parameter) => !parameter.optional && !set.has(parameter.name)).map((parameter) => parameter.name)).toEqual([]);
    const secure = declarations(template, 'parameter_declaration').filter((node) => decoratorsOf(node).has('secure')).map(declaredName);
    expect(secure).toEqual(['backendApiKeys', 'uatBackendApiKeys']);
    for (const name of secure) expect([name, set.get(name)?.text]).toEqual([name, expect.stringMatching(/^readEnvironmentVariable\('[A-Z_]+'\)$/)]);
  });

  it.each(PARAMETER_FILES.map(fromRoot))('%s gives every parameter of a literal type (SKUs) one of that type\'s values', async (path) => {
    const unions = literalUnions();
    expect([...unions.keys()]).toEqual(expect.arrayContaining(['apiManagementSkuType', 'elasticPremiumSkuType']));
    const set = await settings(path.replace('infra/', ''));
    let checked = 0;
    for (const node of declarations(templateOf(path.replace('infra/', '')), 'parameter_declaration')) {
      const type = node.namedChildren[1]?.text ?? '';
      const value = set.get(declaredName(node));
      if (!unions.has(type) || value === undefined) continue;
      expect([declaredName(node), unions.get(type)!.includes(literalString(value) ?? '')]).toEqual([declaredName(node), true]);
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it('puts production behind a gateway tier with an SLA, and the sandbox on the same plan shape (slots) and gateway features', async () => {
    const production = await settings('prod.bicepparam');
    const sandbox = await settings('sandbox.bicepparam');
    expect(['Basic', 'Standard', 'Premium']).toContain(literalString(production.get('apiManagementSku')));
    expect(literalString(production.get('environmentName'))).toBe('prod');
    expect(literalString(sandbox.get('apiManagementSku'))).toBe('Developer');
    expect(literalString(sandbox.get('planSku'))).toMatch(/^EP[123]$/);
    expect(sandbox.get('environmentName')?.text).toBe("readEnvironmentVariable('AZURE_ENV_NAME', 'sandbox')");
    expect(sandbox.get('location')?.text).toBe("readEnvironmentVariable('AZURE_LOCATION')");
    expect(sandbox.get('principalId')?.text).toBe("readEnvironmentVariable('AZURE_PRINCIPAL_ID')");
  });
});

describe('the azd sandbox entry point (infra/sandbox.bicep)', () => {
  let sandbox: BicepFile;
  beforeAll(() => {
    sandbox = files.get(join(INFRA, 'sandbox.bicep'))!;
  });

  it('is subscription scoped, takes environmentName and location, and deploys main.bicep into a resource group of its own', () => {
    expect(sandbox.source).toMatch(/^targetScope = 'subscription'$/m);
    expect(parameters(sandbox).filter((parameter) => !parameter.optional).map((parameter) => parameter.name)).toEqual(expect.arrayContaining(['environmentName', 'location']));
    const [module] = deployables(sandbox, 'module_declaration');
    expect(module?.type).toBe('main.bicep');
    expect(properties(module!.body).get('scope')?.text).toBe('resourceGroup');
  });

  it('lets its deployer, and only in the sandbox, write the data (seeding) from the address azd runs on', () => {
    const params = properties(properties(deployables(sandbox, 'module_declaration')[0]!.body).get('params')!);
    expect(params.get('dataSeederPrincipalIds')?.text.replace(/\s+/g, ' ')).toBe('[ principalId ]');
    expect(params.get('additionalAllowedIpAddresses')?.text.replace(/\s+/g, ' ')).toBe('[ deployerIpAddress ]');
    const seeders = parameters(main).find((parameter) => parameter.name === 'dataSeederPrincipalIds');
    expect(seeders?.node.text).toMatch(/= \[\]$/);
    expect(readFileSync(join(INFRA, 'prod.bicepparam'), 'utf8')).not.toMatch(/dataSeederPrincipalIds|additionalAllowedIpAddresses/);
  });

  it('names its outputs as azd environment values (upper case), each read from main.bicep\'s outputs', () => {
    const outputs = declarations(sandbox, 'output_declaration').map(declaredName);
    expect(outputs.length).toBeGreaterThanOrEqual(6);
    for (const name of outputs) expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });
});
